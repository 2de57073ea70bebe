// Package engine is the core of mcpdecl: the contract between the engine
// and its action adapters, and the pipeline that runs one tool call.
//
// A configuration is loaded (package load) into a [Config] of [Tool]s. Each
// tool validates its arguments against its input schema, runs its [Action],
// maps the action's result into structured output with expr programs
// (package mapping), validates that output against its output schema and
// returns a [Result]. Package server serves the tools over MCP.
//
// The engine knows nothing of HTTP, processes or SQL: an [Adapter] decodes
// its own action block into an Action at load time, and the command line
// passes the adapters to the loader in a [Registry].
package engine
