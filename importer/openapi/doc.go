// Package openapi turns an OpenAPI document into mcpdecl configuration: one
// http_api for the document's servers and security schemes, and one tool
// per selected operation, with its arguments, request mapping and typed
// outputs; or, for the GET operations Options.Resources or x-mcp-resource
// names, a resource or a resource template read through the same request
// (see resource.go).
//
// It reads OpenAPI 3.0 and 3.1 and Swagger 2.0, as JSON or YAML, into
// plain values and resolves references itself (local ones, and ones to
// the other documents that RefAccess lets them reach), so that the three versions go
// through one path and a circular schema is cut where it recurs instead of
// failing the import. It writes HCL with hclwrite, in canonical formatting
// and a deterministic order: the same document and options give the same
// bytes.
//
// The package never touches the engine: it produces text. The command that
// calls it loads that text with the real loader before writing anything.
package openapi
