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
// passes the adapters to the loader in a [Registry]. An [UpstreamAdapter]
// also decodes the top-level block its actions call (an upstream: an
// http_api, a database); a [Resource] is an MCP resource (a resource
// block). What is done to text that leaves the server (redaction,
// sanitizing, excerpts) is package text.
//
// A call runs top to bottom in two places: layer.go lists the [CallLayer]s
// of every tool (scopes, the remote stores' time, the rate limit), which
// wrap the tool's own (ToolSpec.Layers, such as its cache), which wrap
// Tool.call (arguments, timeout, trace, confirmation, action, result) and
// Tool.finish (sanitizing, redaction, size cap). To add a per-call
// feature, write a package with its block's spec, its decoding, its rules
// against the rest of the tool (Validate, run once the tool is decoded)
// and a CallLayer whose Wrap returns next for a tool it does not concern;
// the loader adds the spec to the tool block's and puts the decoded layer
// in ToolSpec.Layers. Package cache is the example.
package engine
