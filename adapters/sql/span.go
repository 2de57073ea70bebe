package sqlaction

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// systemNames are the OpenTelemetry names of the drivers' databases
// (db.system.name).
var systemNames = map[string]string{"sqlite": "sqlite", "postgres": "postgresql", "mysql": "mysql"}

// spanName names the span of a run of the statement, as the OpenTelemetry
// conventions for database spans ask: its operation (the statement's first
// word: SELECT, INSERT, WITH…) and its target, the database block.
func spanName(query, database string) string {
	op, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	if i := strings.IndexAny(op, "\n\t\r("); i >= 0 {
		op = op[:i]
	}
	if op == "" {
		return database
	}
	return strings.ToUpper(op) + " " + database
}

// describeSpan gives the upstream call's span its attributes: the database and
// the statement as written, with its placeholders. The values bound to
// them never go into a span.
func (a *action) describeSpan(ctx context.Context, x *engine.UpstreamCall) {
	x.SetAttributes(
		attribute.String("db.system.name", systemNames[a.db.driver]),
		attribute.String("db.query.text", text.Redacted(ctx, a.query)),
		attribute.String("mcpdecl.database", a.db.name),
	)
}
