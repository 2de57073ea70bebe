// Package graphql turns a GraphQL schema and a set of operation files into
// mcpdecl configuration, the way persisted operations are exposed: one
// http_api for the endpoint, and one tool per operation, whose arguments
// are the operation's variables (types, non-null ones required, enums and
// input objects as JSON Schema) and whose outputs are the fields it
// selects, typed from the schema. A mutation's tool is not read-only (the
// graphql action says so itself).
//
// It writes HCL with hclwrite, in a deterministic order. The package never
// touches the engine: it produces text, which the command that calls it
// loads with the real loader before writing anything.
package graphql
