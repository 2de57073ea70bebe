package sqlaction

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// kind is how the values of a column become JSON values, decided from the
// column's database type name.
type kind uint8

const (
	kindAuto      kind = iota // by the Go type the driver gives
	kindInt                   // integers → int
	kindFloat                 // double precision → float64
	kindFloat32               // single precision → the float64 of its shortest form
	kindDecimal               // NUMERIC, DECIMAL → string, every digit kept
	kindBool                  // booleans → bool (SQLite: 0 and 1 too)
	kindText                  // text → string, even when the driver gives bytes
	kindBytes                 // binary → base64 string
	kindJSON                  // JSON → the decoded value
	kindTimestamp             // date and time → RFC 3339 string in UTC
	kindDate                  // date → "2006-01-02"
	kindBit                   // MySQL BIT(n) → int
)

// columnKind maps a column's database type name, as the driver reports it,
// to its kind.
func columnKind(d dialect, dbType string) kind {
	t := strings.ToUpper(strings.TrimSpace(dbType))
	switch d {
	case dialectPostgres:
		switch t {
		case "INT2", "INT4", "INT8", "OID", "XID", "CID":
			return kindInt
		case "FLOAT4":
			return kindFloat32
		case "FLOAT8":
			return kindFloat
		case "NUMERIC":
			return kindDecimal
		case "BOOL":
			return kindBool
		case "BYTEA":
			return kindBytes
		case "JSON", "JSONB":
			return kindJSON
		case "TIMESTAMP", "TIMESTAMPTZ":
			return kindTimestamp
		case "DATE":
			return kindDate
		}
		// UUID, TEXT, VARCHAR, INTERVAL, arrays and the rest arrive as
		// their text.
		return kindText
	case dialectMySQL:
		t = strings.TrimPrefix(t, "UNSIGNED ")
		switch t {
		case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
			return kindInt
		case "FLOAT":
			return kindFloat32
		case "DOUBLE":
			return kindFloat
		case "DECIMAL":
			return kindDecimal
		case "BIT":
			return kindBit
		case "JSON":
			return kindJSON
		case "DATETIME", "TIMESTAMP":
			return kindTimestamp
		case "DATE":
			return kindDate
		case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "GEOMETRY", "VECTOR":
			return kindBytes
		}
		return kindText
	}
	// SQLite: the declared type of the column, free text, "" for
	// expressions. Storage is dynamic, so every kind falls back on the Go
	// type of each value.
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch {
	case t == "DATE":
		return kindDate
	case t == "DATETIME" || t == "TIMESTAMP":
		return kindTimestamp
	case t == "JSON" || t == "JSONB":
		return kindJSON
	case strings.Contains(t, "BOOL"):
		return kindBool
	case strings.Contains(t, "DECIMAL") || strings.Contains(t, "NUMERIC"):
		return kindDecimal
	}
	return kindAuto
}

// convert turns a value scanned from a column of kind k into the value
// programs and JSON see.
func convert(k kind, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		switch k {
		case kindBool:
			return x != 0
		case kindDecimal:
			return strconv.FormatInt(x, 10)
		}
		return v // an int64 as the driver scanned it, without boxing it again
	case uint64:
		if x <= math.MaxInt64 {
			return int(x)
		}
		return x
	case int32:
		return int(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nonFinite(x)
		}
		switch k {
		case kindDecimal:
			return strconv.FormatFloat(x, 'f', -1, 64)
		case kindFloat32:
			return shortest32(x)
		}
		return v // as it is, without boxing it again
	case float32:
		return convert(kindFloat32, float64(x))
	case bool:
		return v
	case string:
		switch k {
		case kindJSON:
			return decodeJSON([]byte(x), x)
		case kindBytes:
			return base64.StdEncoding.EncodeToString([]byte(x))
		}
		return v
	case []byte:
		return convertBytes(k, x)
	case time.Time:
		if k == kindDate {
			return x.Format(time.DateOnly)
		}
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

// convertBytes converts the bytes a driver gave: the text protocol of
// MySQL gives every value as its text, and binary columns are bytes
// everywhere.
func convertBytes(k kind, b []byte) any {
	switch k {
	case kindInt:
		if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return int(i)
		}
		if u, err := strconv.ParseUint(string(b), 10, 64); err == nil {
			return u
		}
		return string(b)
	case kindFloat, kindFloat32:
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return string(b)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nonFinite(f)
		}
		if k == kindFloat32 {
			return shortest32(f)
		}
		return f
	case kindBit:
		if len(b) <= 8 {
			var u uint64
			for _, c := range b {
				u = u<<8 | uint64(c)
			}
			if u <= math.MaxInt64 {
				return int(u)
			}
			return u
		}
		return base64.StdEncoding.EncodeToString(b)
	case kindBool:
		switch string(b) {
		case "1", "t", "true", "TRUE":
			return true
		case "0", "f", "false", "FALSE":
			return false
		}
		return string(b)
	case kindJSON:
		return decodeJSON(b, "")
	case kindDecimal, kindText, kindTimestamp, kindDate:
		return string(b)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// nonFinite names a value JSON has no number for, as PostgreSQL writes
// it.
func nonFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "Infinity"
	}
	return "-Infinity"
}

// shortest32 is f, a single-precision value widened to float64, as the
// float64 of its shortest decimal form: 1.1, not 1.100000023841858.
func shortest32(f float64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	g, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	if err != nil {
		return f
	}
	return g
}

// decodeJSON decodes a JSON column. Whole numbers that fit become ints,
// the others float64, as for HTTP bodies. Text that is not JSON is kept as
// a string (orig, when given, saves a copy).
func decodeJSON(b []byte, orig string) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return textOf(b, orig)
	}
	if _, err := dec.Token(); err != io.EOF {
		return textOf(b, orig)
	}
	return jsonenc.Numbers(v)
}

func textOf(b []byte, orig string) string {
	if orig != "" {
		return orig
	}
	return string(b)
}
