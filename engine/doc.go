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
// A call runs top to bottom through the [CallLayer]s that Tool.layers (in
// layer.go) lists, outermost first, each built once as the tool is made:
// the configuration's (ToolSpec.Outer: the audit log, package audit, and
// what the call's span records, package tracing), the scopes, the time
// of the remote stores, the tool's own (ToolSpec.Layers, in the order the
// loader puts them: the rate limit, package ratelimit, then the cache,
// package cache), the timeout, and the call tracer (a traced call runs on
// a copy of the tool that records its stages; package calltrace). The
// last wraps Tool.step: Tool.call (arguments, confirmation and other
// questions, action, result) and Tool.finish (sanitizing, redaction, size
// cap). A layer whose feature does not concern a tool returns next from
// Wrap, so that its calls do not pay for it.
//
// To add a per-call feature, write a package with its block's spec, its
// decoding, its rules against the rest of the tool (run once the tool is
// decoded) and a CallLayer. A layer that refuses a call returns
// Tool.Refuse; one that waits for a store over the network is a
// [RemoteStore], and shares the call's [RemoteStoreTime] with the tool's
// other remote stores. For a tool's own feature the loader adds the spec
// to the tool block's and puts the decoded layer in ToolSpec.Layers
// (packages ratelimit and cache are the examples); for a configuration's,
// it decodes the top-level block before the tools and appends the layer
// to the layers it gives every tool block in ToolSpec.Outer and the
// Config in Config.Layers (package audit is the example; a server that
// must set the layer up, as it opens the audit log, finds it there).
package engine
