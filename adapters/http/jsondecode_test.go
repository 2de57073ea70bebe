package httpaction

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is what decodeJSON must give: encoding/json's value, with
// whole numbers as ints.
func stdDecode(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return wholeNumbers(v), nil
}

var jsonSamples = []string{
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
	` [ 1 , 2.5 , -0 , 1e3 , 1E-2 , -7 , 9007199254740992 , 9007199254740993 , 12345678901234567890 ] `,
	`1e400`, `-1e400`, `1e-400`, `0.1`, `"x"`, `true`, `null`, `[]`, `{}`, `[[],{}]`,
	`{"a":1,"a":2}`,
	`"tab\there \u00e9 \ud83d\ude00 \"q\" \\ \/"`,
	`{"k\u00e9y":"v"}`,
	`"héllo 世界"`,
	"\"\xff\xfe\"", "{\"\xff\":1}",
	`"\ud800"`,
	`{"a":`, `[1,]`, `nul`, `"abc`, ``, `  `, `[1] [2]`, `{"a" 1}`, `01`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
	strings.Repeat(`{"a":`, 500) + "1" + strings.Repeat("}", 500),
}

// TestDecodeJSON: decodeJSON gives what encoding/json gives, or fails as
// it does.
func TestDecodeJSON(t *testing.T) {
	for _, s := range jsonSamples {
		checkDecode(t, s)
	}
}

func checkDecode(t *testing.T, s string) {
	t.Helper()
	want, wantErr := stdDecode([]byte(s))
	got, err := decodeJSON([]byte(s), s)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%.60q: error %v, want %v", s, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.60q: %#v, want %#v", s, got, want)
	}
}

// FuzzDecodeJSON: decodeJSON gives what encoding/json gives, for any body.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkDecode(t, s)
	})
}
