package engine

import "time"

// Settings are the server-wide defaults that tools and adapters fall back
// on. The server block sets them; every field has a sensible default.
type Settings struct {
	// Timeout bounds one tool call, action and mappings included.
	Timeout time.Duration
	// MaxResponseBytes caps the body an upstream may send back.
	MaxResponseBytes int64
	// MaxArgumentBytes caps the JSON arguments of one call.
	MaxArgumentBytes int64
	// MaxResultBytes caps the result of one call: its text, its data and
	// its structured content.
	MaxResultBytes int64
	// PageSize is the number of tools in one page of tools/list.
	PageSize int
	// AllowedOrigins lists the browser origins (such as
	// "https://app.example.com") whose requests the HTTP front serves
	// besides its own; "*" allows any.
	AllowedOrigins []string
	// MaxConnections caps the HTTP connections open at once; further ones
	// wait to be accepted. It is read when the server starts.
	MaxConnections int
	// LogLevel is the level of the log messages sent to a client that set
	// none (one of LogLevels; "" for none): a client of a revision before
	// 2026-07-28 that did not call logging/setLevel, and over stateless
	// HTTP every such client. It is read when the server starts.
	LogLevel string
	// ExactArguments turns off what a call does by default: taking a
	// string that is exactly a JSON number or boolean for one where an
	// argument's schema wants a number, an integer or a boolean (the
	// server block's coerce_arguments = false).
	ExactArguments bool
	// OutputSchemas is what each tool's outputSchema carries in
	// tools/list (one of OutputSchemaModes); a toolset may list them
	// otherwise. Results are validated against the whole schema whatever
	// it is.
	OutputSchemas string
	// ProgressHeartbeat is how often a call whose client asked for
	// progress, and whose action reports none of its own, is sent a
	// progress notification that says it still runs; 0 for never.
	ProgressHeartbeat time.Duration
	// RequestStateKeys sign the request states of confirmations (the
	// first) and verify them (each: a key being replaced and its
	// successor); none: a key of this process alone.
	RequestStateKeys [][]byte
	// RequestStates, when not nil, remembers the request states answered,
	// shared by the replicas (the request_states block); nil: each tool
	// remembers its own in memory.
	RequestStates StateStore
	// Tasks, when not nil, keeps the tasks of the tools with a task block,
	// shared by the replicas (the tasks block); nil: the server keeps them
	// in its memory.
	Tasks TaskStore
	// TasksPerCaller caps the tasks one caller has at once; 0:
	// DefaultTasksPerCaller.
	TasksPerCaller int
	// HTTPSessions keeps a session over streamable HTTP for each client of
	// a revision before 2026-07-28 that initializes one, so that it can be
	// sent requests (elicitation, sampling, roots) and resource updates;
	// false: HTTP is stateless for every client. It is read when the
	// server starts.
	HTTPSessions bool
	// MaxHTTPSessions caps the sessions one process keeps at once (with
	// HTTPSessions); an initialize beyond it is refused.
	MaxHTTPSessions int
	// HTTPSessionIdleTimeout closes a session that received no request
	// for that long (with HTTPSessions).
	HTTPSessionIdleTimeout time.Duration
}

// The values of output_schemas: what a tool's outputSchema carries in
// tools/list.
const (
	// OutputSchemasFull lists the whole schema.
	OutputSchemasFull = "full"
	// OutputSchemasCompact lists its shape (see schema.Compact): no
	// annotations nor narrowing assertions, cut to a budget from its
	// deepest levels up; it accepts every value the whole one does.
	OutputSchemasCompact = "compact"
	// OutputSchemasNone lists no outputSchema; results still carry their
	// structured content.
	OutputSchemasNone = "none"
)

// OutputSchemaModes are the values of output_schemas.
var OutputSchemaModes = []string{OutputSchemasFull, OutputSchemasCompact, OutputSchemasNone}

// DefaultSettings returns the settings in force when the server block does
// not change them.
func DefaultSettings() Settings {
	return Settings{
		Timeout:           30 * time.Second,
		MaxResponseBytes:  10 << 20,
		MaxArgumentBytes:  1 << 20,
		MaxResultBytes:    1 << 20,
		PageSize:          100,
		MaxConnections:    1024,
		OutputSchemas:     OutputSchemasFull,
		ProgressHeartbeat: 5 * time.Second,

		MaxHTTPSessions:        1000,
		HTTPSessionIdleTimeout: 10 * time.Minute,
	}
}
