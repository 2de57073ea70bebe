// Package load reads mcpdecl's HCL files into an [engine.Config].
//
// Loading runs in phases, each on the root bodies of every file: variables
// (with their overrides), locals, the server block, the top-level blocks of
// the adapters (such as http_api), and last the tools, whose action blocks
// are decoded by their adapters. Each block is read through its spec
// ([spec.Block], declared in the file named after the block: toolSpec in
// tool.go, argSpec in args.go…), then checked by the rules across its
// attributes; [Language] gathers the specs from rootSpec and the adapters,
// and docs/language.md is generated from them. Every problem found is
// reported as a diagnostic with the narrowest source range; loading goes
// on after an error, so that one run reports them all.
package load
