package sqlaction

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestColumnKind(t *testing.T) {
	tests := []struct {
		d      dialect
		dbType string
		want   kind
	}{
		{dialectPostgres, "INT8", kindInt},
		{dialectPostgres, "NUMERIC", kindDecimal},
		{dialectPostgres, "FLOAT4", kindFloat32},
		{dialectPostgres, "JSONB", kindJSON},
		{dialectPostgres, "TIMESTAMPTZ", kindTimestamp},
		{dialectPostgres, "UUID", kindText},
		{dialectPostgres, "_INT4", kindText},
		{dialectMySQL, "UNSIGNED BIGINT", kindInt},
		{dialectMySQL, "DECIMAL", kindDecimal},
		{dialectMySQL, "VARBINARY", kindBytes},
		{dialectMySQL, "MEDIUMTEXT", kindText},
		{dialectMySQL, "BIT", kindBit},
		{dialectSQLite, "DECIMAL(10, 2)", kindDecimal},
		{dialectSQLite, "numeric", kindDecimal},
		{dialectSQLite, "BOOLEAN", kindBool},
		{dialectSQLite, "date", kindDate},
		{dialectSQLite, "DATETIME", kindTimestamp},
		{dialectSQLite, "json", kindJSON},
		{dialectSQLite, "VARCHAR(20)", kindAuto},
		{dialectSQLite, "", kindAuto},
	}
	for _, tt := range tests {
		if got := columnKind(tt.d, tt.dbType); got != tt.want {
			t.Errorf("%d %q: kind %d, want %d", tt.d, tt.dbType, got, tt.want)
		}
	}
}

func TestConvert(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 45, 0, 500_000_000, time.FixedZone("CET", 3600))
	tests := []struct {
		k    kind
		in   any
		want string // JSON
	}{
		{kindAuto, nil, `null`},
		{kindInt, int64(math.MaxInt64), `9223372036854775807`},
		{kindInt, uint64(math.MaxUint64), `18446744073709551615`},
		{kindInt, []byte("-42"), `-42`},
		{kindInt, []byte("18446744073709551615"), `18446744073709551615`},
		{kindInt, "not a number", `"not a number"`},
		{kindFloat, 2.5, `2.5`},
		{kindFloat, []byte("2.5"), `2.5`},
		{kindFloat32, float64(float32(1.1)), `1.1`},
		{kindFloat32, float32(1.1), `1.1`},
		{kindFloat32, []byte("1.1"), `1.1`},
		{kindDecimal, "12345678901234567890.0123456789", `"12345678901234567890.0123456789"`},
		{kindDecimal, []byte("0.10"), `"0.10"`},
		{kindDecimal, 19.99, `"19.99"`},
		{kindDecimal, int64(12), `"12"`},
		{kindBool, true, `true`},
		{kindBool, int64(0), `false`},
		{kindBool, []byte("1"), `true`},
		{kindText, []byte("héllo"), `"héllo"`},
		{kindAuto, []byte{0, 255, 16}, `"AP8Q"`},
		{kindBytes, []byte{0, 255, 16}, `"AP8Q"`},
		{kindJSON, []byte(`{"a":[1,2.5,"x",null,true]}`), `{"a":[1,2.5,"x",null,true]}`},
		{kindJSON, `[1, 2]`, `[1,2]`},
		{kindJSON, `{"a": 1} trailing`, `"{\"a\": 1} trailing"`},
		{kindJSON, []byte(`nope`), `"nope"`},
		{kindTimestamp, ts, `"2024-02-29T12:45:00.5Z"`},
		{kindDate, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), `"2024-02-29"`},
		{kindBit, []byte{0x02, 0x01}, `513`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(convert(tt.k, tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("convert(%d, %#v) = %s, want %s", tt.k, tt.in, b, tt.want)
		}
	}
}

func TestBindValue(t *testing.T) {
	if got := bindValue(dialectSQLite, []any{1, "a"}); got != `[1,"a"]` {
		t.Errorf("list for sqlite = %#v", got)
	}
	if got := bindValue(dialectMySQL, map[string]any{"k": 1}); got != `{"k":1}` {
		t.Errorf("map for mysql = %#v", got)
	}
	if got, ok := bindValue(dialectPostgres, []any{1}).([]any); !ok || len(got) != 1 {
		t.Errorf("list for postgres = %#v", got)
	}
	if got := bindValue(dialectSQLite, json.Number("42")); got != int64(42) {
		t.Errorf("number = %#v", got)
	}
	if got := bindValue(dialectSQLite, json.Number("4.5")); got != 4.5 {
		t.Errorf("number = %#v", got)
	}
}

func TestSQLiteDSN(t *testing.T) {
	tests := []struct {
		dsn, rw, ro string
		memory      bool
	}{
		{"shop.db", "/cfg/shop.db?_busy_timeout=5000", "file:/cfg/shop.db?_busy_timeout=5000&mode=ro", false},
		{"/abs/x.db?_pragma=foreign_keys(1)", "/abs/x.db?_pragma=foreign_keys(1)&_busy_timeout=5000", "file:/abs/x.db?_pragma=foreign_keys(1)&_busy_timeout=5000&mode=ro", false},
		{"file:data/x.db?mode=rw", "file:/cfg/data/x.db?mode=rw&_busy_timeout=5000", "file:/cfg/data/x.db?_busy_timeout=5000&mode=ro", false},
		{"file:///abs/x.db", "file:///abs/x.db?_busy_timeout=5000", "file:///abs/x.db?_busy_timeout=5000&mode=ro", false},
		{"we%ird#.db", "/cfg/we%ird#.db?_busy_timeout=5000", "file:/cfg/we%25ird%23.db?_busy_timeout=5000&mode=ro", false},
		{":memory:", ":memory:?_busy_timeout=5000", "", true},
		{"file:mem?mode=memory&cache=shared", "file:mem?mode=memory&cache=shared&_busy_timeout=5000", "", true},
	}
	for _, tt := range tests {
		rw, ro, memory, err := sqliteDSN(tt.dsn, "/cfg")
		if err != nil {
			t.Errorf("%s: %v", tt.dsn, err)
			continue
		}
		if rw != tt.rw || ro != tt.ro || memory != tt.memory {
			t.Errorf("%s:\n rw %s\n ro %s\n memory %v\nwant\n rw %s\n ro %s\n memory %v", tt.dsn, rw, ro, memory, tt.rw, tt.ro, tt.memory)
		}
	}
	if _, _, _, err := sqliteDSN("file:x.db?mode=bogus", "/cfg"); err == nil {
		t.Errorf("a bad mode is an error")
	}
}

func TestAppendObject(t *testing.T) {
	names := []string{"z", "a", "weird \"name\"\n"}
	values := []any{
		nil, true, false, 0, -42, 9007199254740993, uint64(math.MaxUint64),
		0.0, 1.5, -2.25e-7, 1e21, 123456789.125, math.SmallestNonzeroFloat64,
		"", "plain", "quote \" backslash \\ tab \t nl \n cr \r nul \x00 del \x7f",
		"<html> & 'x'", "héllo wörld ✓ 🎉", "bad \xff utf8", "line\u2028sep\u2029",
		[]any{1, "a", nil}, map[string]any{"b": 1, "a": []any{true}},
	}
	var rows []any
	for i := 0; i < len(values); i += 3 {
		row := map[string]any{}
		for j, n := range names {
			row[n] = nil
			if i+j < len(values) {
				row[n] = values[i+j]
			}
		}
		rows = append(rows, row)
	}
	keys := objectKeys(names)
	got := []byte{'['}
	for i, r := range rows {
		if i > 0 {
			got = append(got, ',')
		}
		got = appendObject(got, keys, names, r.(map[string]any))
	}
	got = append(got, ']')
	var decoded []map[string]any
	if err := json.Unmarshal(got, &decoded); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	want, _ := json.Marshal(rows)
	var wantDecoded []map[string]any
	_ = json.Unmarshal(want, &wantDecoded)
	gb, _ := json.Marshal(decoded)
	wb, _ := json.Marshal(wantDecoded)
	if string(gb) != string(wb) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Keys follow the columns.
	if first := string(got[:6]); first != `[{"z":` {
		t.Errorf("keys out of order: %s", got)
	}
}

// TestAppendValueWritesNullForWhatJSONCannot: a NaN or an infinity, alone
// or in a decoded JSON column, becomes null rather than breaking the text.
func TestAppendValueWritesNullForWhatJSONCannot(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), []any{1.5, math.Inf(-1)}} {
		if got := string(appendValue([]byte("x:"), v)); got != "x:null" {
			t.Errorf("%v: %s", v, got)
		}
	}
	if got := string(appendValue(nil, []any{int64(1), "a", nil, map[string]any{"k": true}})); got != `[1,"a",null,{"k":true}]` {
		t.Errorf("list: %s", got)
	}
}
