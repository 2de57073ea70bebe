package openapi

import (
	"encoding/json"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/schema"
)

// TestCompactOutputsByDefault: imported tools list their outputs compact,
// unless a toolset or the tool says otherwise; each compact schema keeps
// to the budget, or to the top level of the response, and all of them
// cost a quarter less than the whole schemas at least (on these small
// documents; large responses, such as YNAB's, save more).
func TestCompactOutputsByDefault(t *testing.T) {
	var whole, compact, tools int
	for _, doc := range []string{"petstore.yaml", "galaxy.yaml", "library.yaml", "swagger.json", "openapi31.yaml"} {
		cfg := loadImport(t, doc, "https://api.example.com", nil)
		for _, tool := range cfg.Tools {
			if tool.OutputSchema() == nil {
				continue
			}
			tools++
			if got := tool.OutputSchemas(); got != engine.OutputSchemasCompact {
				t.Errorf("%s lists its outputs %q, want compact", tool.Name(), got)
			}
			c := tool.ListedOutputSchemaJSON("")
			whole += len(tool.ListedOutputSchemaJSON(engine.OutputSchemasFull))
			compact += len(c)
			if len(c) > schema.CompactBudget {
				// Past the budget, only the top level is left: no property
				// of the response has properties of its own.
				var doc struct {
					Properties map[string]struct {
						Properties map[string]any `json:"properties"`
					} `json:"properties"`
				}
				if err := json.Unmarshal(c, &doc); err != nil {
					t.Fatal(err)
				}
				for name, p := range doc.Properties {
					if p.Properties != nil {
						t.Errorf("%s: %d bytes compact, over the budget, and %s still has properties: %s", tool.Name(), len(c), name, c)
					}
				}
			}
		}
	}
	if tools == 0 || compact*4 > whole*3 {
		t.Errorf("%d tools with outputs list %d bytes of compact output schemas, against %d whole: want a quarter less at least", tools, compact, whole)
	}
	t.Logf("%d tools: output schemas %d bytes whole, %d compact", tools, whole, compact)
}
