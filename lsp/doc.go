// Package lsp is mcpdecl's language server (mcpdecl lsp): it speaks the
// Language Server Protocol over a stream for the .hcl files an editor
// opens.
//
// A configuration is the *.hcl files of a directory, loaded together as
// mcpdecl validate DIR loads them, with the editor's unsaved buffers in
// place of their files; in a directory where several files declare a
// server block (a directory of examples), each file is a configuration of
// its own, as mcpdecl validate FILE loads it.
//
// The server publishes validate's diagnostics as the user types
// (debounced), and for an open test file (*.test.hcl) those mcpdecl test
// reports before it runs anything. It formats as mcpdecl fmt does,
// outlines the tools, resources, prompts and tests, completes and
// documents the blocks and attributes of the language from its specs
// (load.Language and testrun.Language, read at each request; blocks as
// snippets made from the specs' examples, for a client that takes them),
// completes var., local., http_api. and database. references and the
// names of tools, prompts and mocks' targets in strings, finds what they
// name and where else it is named, and offers the "did you mean" fixes of
// the diagnostics as code actions.
//
// Inside expr("…"), completion and hover read what the last load compiled
// there: the load tells the server of each expression it compiles, with
// the variables its programs may read and their types
// (load.Options.Programs), so the server offers exactly what the
// type-checker accepts at that place, and the type of a program's result.
//
// It never runs an action, a program or a query, and never connects to an
// upstream or a database: the load is validate's without --connect.
// Completion, hover and definitions read the syntax, from the last parse
// of a buffer mapped through the edits since, and the types the last load
// found; nothing is evaluated for them. Diagnostics are
// redacted as validate's are, and a sensitive variable's default is never
// shown.
//
// The protocol's types and dispatch are github.com/tliron/glsp's; the
// framing is github.com/sourcegraph/jsonrpc2's, with a codec that skips a
// message that is not JSON-RPC instead of dropping the connection.
package lsp
