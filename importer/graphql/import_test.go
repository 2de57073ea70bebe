package graphql

import (
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/internal/gqlschema"
)

const testSDL = `
type Query { node(id: ID!): Node, search(q: Query2!, kind: Kind): [Node!]! }
type Subscription { node(id: ID!): Node }
type Mutation { rename(input: RenameInput!): Node }
"Something with a name."
type Node { id: ID!, name: String, kind: Kind!, parent: Node }
enum Kind { A B }
"A search, which may nest."
input Query2 { text: String!, kind: Kind, and: [Query2!], limit: Int = 10 }
input RenameInput { id: ID!, name: String! }
`

func TestImport(t *testing.T) {
	schema, err := gqlschema.Parse("s.graphql", []byte(testSDL))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(schema, []Operation{
		{Path: "ops/node.graphql", Text: "# One node,\n# by its id.\nquery getNode($id: ID!) { node(id: $id) { id name kind parent { id } } }"},
		{Path: "ops/search.graphql", Text: "query Search($q: Query2!, $kind: Kind = A) { search(q: $q, kind: $kind) { id ...F } } fragment F on Node { name @include(if: true) }"},
		{Path: "ops/rename-node.graphql", Text: "mutation($input: RenameInput!) { rename(input: $input) { id } }"},
		{Path: "ops/two.graphql", Text: "query A { node(id: 1) { id } } query B { node(id: 2) { id } }"},
		{Path: "ops/sub.graphql", Text: "subscription { node(id: 1) { id } }"},
		{Path: "ops/again.graphql", Text: "query GetNode { node(id: 1) { id } }"},
	}, Options{Name: "api", Endpoint: "https://example.com/graphql", BearerEnv: "API_TOKEN", Schema: "s.graphql"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Imported, ","); got != "get_node,search,rename_node,get_node_2" {
		t.Errorf("imported %s", got)
	}
	if len(res.Skipped) != 2 || !strings.Contains(res.Skipped[0].Reason, "holds 2 operations") || !strings.Contains(res.Skipped[1].Reason, "subscription") {
		t.Errorf("skipped %+v", res.Skipped)
	}
	hcl := strings.Join(strings.Fields(string(res.Data)), " ")
	for _, want := range []string{
		`default = env("API_URL", "https://example.com/graphql")`,
		`bearer = var.api_token`,
		`description = "One node, by its id."`,
		`query = file("ops/node.graphql")`,
		`enum = ["A", "B"]`,         // an enum in an input object
		`default = "A"`,             // a variable's default
		`required = ["text"]`,       // limit has a default
		`type = ["string", "null"]`, // a nullable field of the output
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("the configuration lacks %s:\n%s", want, hcl)
		}
	}
	// The recursive input object is cut where it recurs: its "and" items
	// are objects without properties.
	if strings.Count(hcl, `text = {`) != 1 {
		t.Errorf("Query2 should be written once, and cut where it recurs:\n%s", hcl)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"getNode": "get_node", "HTTPStatus": "http_status", "rename-node": "rename_node", "Search": "search", "a1B": "a1_b"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
