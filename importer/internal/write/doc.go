// Package write holds what the importers (OpenAPI, GraphQL) write alike:
// a tool's arg and output blocks, plain values (schemas, defaults) with
// their object keys, and the member accesses of their programs.
package write
