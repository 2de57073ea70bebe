package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

// sameJSON reports whether got, written as JSON, means the same as want.
func sameJSON(t *testing.T, got any, want string) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshalling %v: %v", got, err)
	}
	var g, w any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad test: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestJSONSchema(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"string", `{"type":"string"}`},
		{"number", `{"type":"number"}`},
		{"integer", `{"type":"integer"}`},
		{"bool", `{"type":"boolean"}`},
		{"any", `{}`},
		{"list(string)", `{"type":"array","items":{"type":"string"}}`},
		{"set(integer)", `{"type":"array","items":{"type":"integer"},"uniqueItems":true}`},
		{"map(number)", `{"type":"object","additionalProperties":{"type":"number"}}`},
		{"list(any)", `{"type":"array","items":{}}`},
		{"object({})", `{"type":"object","properties":{},"additionalProperties":false}`},
		{"object({id = integer, note = optional(string), tags = list(string)})", `{
			"type":"object",
			"properties":{"id":{"type":"integer"},"note":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},
			"required":["id","tags"],
			"additionalProperties":false}`},
		{"object({a = optional(bool)})", `{"type":"object","properties":{"a":{"type":"boolean"}},"additionalProperties":false}`},
		{"list(object({id = integer}))", `{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}}`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			typ, diags := ParseType(parse(t, tt.src))
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			sameJSON(t, typ.JSONSchema(), tt.want)
		})
	}
	var none *Type
	sameJSON(t, none.JSONSchema(), `{}`)
}

func TestRequiredKeepsDeclarationOrder(t *testing.T) {
	typ, _ := ParseType(parse(t, "object({z = string, a = string, m = string})"))
	got := typ.JSONSchema()["required"]
	if !reflect.DeepEqual(got, []any{"z", "a", "m"}) {
		t.Errorf("required = %v", got)
	}
	in := InputSchema([]Arg{{Name: "z", Type: typ}, {Name: "a"}, {Name: "m"}})
	if !reflect.DeepEqual(in["required"], []any{"z", "a", "m"}) {
		t.Errorf("required = %v", in["required"])
	}
}

func TestInputSchema(t *testing.T) {
	str := &Type{Kind: String}
	tests := []struct {
		name string
		args []Arg
		want string
	}{
		{
			name: "no arguments",
			want: `{"type":"object","properties":{},"additionalProperties":false}`,
		},
		{
			name: "weather",
			args: []Arg{
				{Name: "city", Type: str, Description: "City name", MinLength: new(1), MaxLength: new(80)},
				{Name: "units", Type: str, Enum: []any{"metric", "imperial"}, HasDefault: true, Default: "metric"},
				{Name: "days", Type: &Type{Kind: Integer}, Minimum: new(1.0), Maximum: new(7.0), HasDefault: true, Default: 3},
				{Name: "email", Type: str, Format: "email", Optional: true, Sensitive: true},
				{Name: "code", Type: str, Pattern: "^[A-Z]{2}$"},
				{Name: "tags", Type: &Type{Kind: List, Elem: str, Unique: true}, MinItems: new(1), MaxItems: new(5), Optional: true},
				{Name: "extra", Description: "Anything"},
			},
			want: `{
				"type":"object",
				"properties":{
					"city":{"type":"string","description":"City name","minLength":1,"maxLength":80},
					"units":{"type":"string","enum":["metric","imperial"],"default":"metric"},
					"days":{"type":"integer","minimum":1,"maximum":7,"default":3},
					"email":{"type":"string","format":"email"},
					"code":{"type":"string","pattern":"^[A-Z]{2}$"},
					"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":1,"maxItems":5},
					"extra":{"description":"Anything"}
				},
				"required":["city","code","extra"],
				"additionalProperties":false}`,
		},
		{
			name: "a default of null is still a default",
			args: []Arg{{Name: "x", Type: str, HasDefault: true, Default: nil}},
			want: `{"type":"object","properties":{"x":{"type":"string","default":null}},"additionalProperties":false}`,
		},
		{
			name: "escape hatch",
			args: []Arg{
				{Name: "q", Description: "The query", Schema: map[string]any{"type": "string", "minLength": 3}, MinLength: new(99)},
				{Name: "r", Description: "Ignored", Schema: map[string]any{"description": "Its own", "oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, HasDefault: true, Default: 1},
			},
			want: `{
				"type":"object",
				"properties":{
					"q":{"type":"string","minLength":3,"description":"The query"},
					"r":{"description":"Its own","oneOf":[{"type":"string"},{"type":"integer"}],"default":1}
				},
				"required":["q"],
				"additionalProperties":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := InputSchema(tt.args)
			sameJSON(t, doc, tt.want)
			if _, err := Compile(doc); err != nil {
				t.Errorf("does not compile: %v", err)
			}
		})
	}
}

func TestInputSchemaLeavesEscapeHatchAlone(t *testing.T) {
	own := map[string]any{"type": "string"}
	doc := InputSchema([]Arg{{Name: "q", Description: "d", Schema: own}})
	if len(own) != 1 {
		t.Errorf("the arg's schema was changed: %v", own)
	}
	doc["properties"].(map[string]any)["q"].(map[string]any)["type"] = "number"
	if own["type"] != "string" {
		t.Error("the document shares the arg's schema")
	}
}

func TestOutputSchema(t *testing.T) {
	if got := OutputSchema(nil); got != nil {
		t.Errorf("OutputSchema(nil) = %v, want nil", got)
	}
	outs := []Output{
		{Name: "temperature", Type: &Type{Kind: Number}, Description: "In degrees"},
		{Name: "conditions", Type: &Type{Kind: String}},
		{Name: "alerts", Type: &Type{Kind: List, Elem: &Type{Kind: Object, Fields: []Field{{Name: "level", Type: &Type{Kind: Integer}}}}}, Optional: true},
		{Name: "raw"},
	}
	doc := OutputSchema(outs)
	sameJSON(t, doc, `{
		"type":"object",
		"properties":{
			"temperature":{"type":"number","description":"In degrees"},
			"conditions":{"type":"string"},
			"alerts":{"type":"array","items":{"type":"object","properties":{"level":{"type":"integer"}},"required":["level"],"additionalProperties":false}},
			"raw":{}
		},
		"required":["temperature","conditions","raw"],
		"additionalProperties":false}`)
	if _, err := Compile(doc); err != nil {
		t.Errorf("does not compile: %v", err)
	}
}
