package jsonenc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(`{"a": [1, 2.0, 1e3, 2.5, 1e400, -9007199254740993], "b": {"c": 7}}`))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{1, 2, 1000, 2.5, "1e400", -9007199254740993}, "b": map[string]any{"c": 7}}
	if got := Numbers(v); !reflect.DeepEqual(got, want) {
		t.Errorf("Numbers = %#v, want %#v", got, want)
	}
}
