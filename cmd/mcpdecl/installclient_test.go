package main

import (
	"strings"
	"testing"
)

// mergeClientEntry keeps what the file held, comments included, and sets
// the one entry.
func TestMergeClientEntry(t *testing.T) {
	entry := clientEntry{Type: "stdio", Command: "/bin/mcpdecl", Args: []string{"serve", "/t.hcl"}}
	for _, tt := range []struct {
		name, old, want string
		replaced        bool
		err             string
	}{{
		name: "absent",
		want: "{\n  \"servers\": {\n    \"w\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/mcpdecl\",\n      \"args\": [\n        \"serve\",\n        \"/t.hcl\"\n      ]\n    }\n  }\n}\n",
	}, {
		name: "no servers yet",
		old:  "{\"x\": 1}\n",
		want: "{\"x\": 1, \"servers\": {\n\t\"w\": {\"type\": \"stdio\", \"command\": \"/bin/mcpdecl\", \"args\": [\"serve\", \"/t.hcl\"]}\n}}\n",
	}, {
		name:     "comments and trailing commas kept, the entry replaced",
		old:      "{\n  // mine\n  \"servers\": {\"w\": {\"command\": \"old\"},},\n}\n",
		want:     "{\n\t// mine\n\t\"servers\": {\n\t\t\"w\": {\"type\": \"stdio\", \"command\": \"/bin/mcpdecl\", \"args\": [\"serve\", \"/t.hcl\"]},\n\t},\n}\n",
		replaced: true,
	}, {
		name: "not JSON",
		old:  "{\"servers\": {}",
		err:  "not valid JSON (line 1, column 15: ",
	}, {
		name: "an array",
		old:  "[]",
		err:  "not a JSON object",
	}, {
		name: "servers is not an object",
		old:  `{"servers": null}`,
		err:  `its "servers" member is not a JSON object`,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			got, replaced, err := mergeClientEntry([]byte(tt.old), "servers", "w", entry)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one that says %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case string(got) != tt.want || replaced != tt.replaced:
				t.Errorf("got (replaced %v)\n%s\nwant (replaced %v)\n%s", replaced, got, tt.replaced, tt.want)
			}
		})
	}
}
