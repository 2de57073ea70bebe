package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShare: a subschema written twice or more (an owner under a
// repository, under its parent, and in a list of forks) is written once
// under $defs and referred to elsewhere; the definitions a schema had stay
// and keep their names; a short repeated subschema stays where it is; the
// document given is not changed; and the shared schema accepts and
// refuses the same values as the whole one.
func TestShare(t *testing.T) {
	const owner = `{"type": "object", "description": "The account that owns it.", "required": ["login", "id"],
	  "properties": {"login": {"type": "string", "minLength": 1}, "id": {"type": "integer"}, "site_admin": {"type": "boolean"}, "kind": {"enum": ["User", "Organization"]}}}`
	whole := `{
	  "type": "object", "required": ["owner"],
	  "properties": {
	    "owner": ` + owner + `,
	    "parent": {"type": "object", "properties": {"owner": ` + owner + `, "license": {"$ref": "#/$defs/owner"}}},
	    "forks": {"type": "array", "items": {"type": "object", "properties": {"owner": ` + owner + `}}},
	    "created_at": {"type": "string", "format": "date-time"},
	    "updated_at": {"type": "string", "format": "date-time"}
	  },
	  "$defs": {"owner": {"type": "object", "properties": {"spdx": {"type": "string"}}}}
	}`
	doc := decodeDoc(t, whole)
	before, _ := json.Marshal(doc)
	got := Share(doc)
	if after, _ := json.Marshal(doc); string(after) != string(before) {
		t.Errorf("Share changed the document it was given:\n%s", after)
	}
	text, _ := json.Marshal(got)
	if n := strings.Count(string(text), "The account that owns it."); n != 1 {
		t.Errorf("the owner is written %d times, want once:\n%s", n, text)
	}
	if n := strings.Count(string(text), `"$ref":"#/$defs/owner_2"`); n != 3 {
		t.Errorf("%d references to the owner, want 3 (the name owner being taken):\n%s", n, text)
	}
	if !strings.Contains(string(text), `"owner":{"properties":{"spdx"`) || !strings.Contains(string(text), `"updated_at":{"format":"date-time","type":"string"}`) {
		t.Errorf("a definition of the schema, or a short repeat, was changed:\n%s", text)
	}
	if len(text) >= len(before) {
		t.Errorf("the shared schema is %d bytes, the whole one %d", len(text), len(before))
	}
	acceptsAlike(t, doc, got, "shared", []string{
		`{"owner": {"login": "a", "id": 1}}`,
		`{"owner": {"login": "a", "id": 1}, "forks": [{"owner": {"login": "b", "id": 2, "kind": "User"}}], "parent": {"license": {"spdx": "MIT"}}}`,
	}, []string{
		`{"owner": {"login": "", "id": 1}}`,
		`{"owner": {"login": "a", "id": 1}, "forks": [{"owner": {"login": "b"}}]}`,
		`{"owner": {"login": "a", "id": 1}, "parent": {"owner": {"login": "a", "id": 1, "kind": "Bot"}}}`,
		`{"owner": {"login": "a", "id": 1}, "parent": {"license": {"spdx": 1}}}`,
	})

	// What a move could change the meaning of: left as it is.
	for _, odd := range []string{
		`{"properties": {"a": ` + owner + `, "b": ` + owner + `, "c": {"$ref": "#/properties/a"}}}`,
		`{"properties": {"a": ` + owner + `, "b": ` + owner + `, "c": {"$anchor": "x"}}}`,
	} {
		if out, _ := json.Marshal(Share(decodeDoc(t, odd))); strings.Contains(string(out), "$defs") {
			t.Errorf("%s was shared: %s", odd, out)
		}
	}
	if Share(nil) != nil {
		t.Error("Share(nil) is not nil")
	}
}
