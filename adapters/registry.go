// Package adapters lists the action kinds mcpdecl is built with. Each kind
// lives in a folder of its own (http, graphql, exec, sql, sample); adding
// one is that folder and a line here.
package adapters

import (
	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	graphqlaction "github.com/mcpdecl/mcpdecl/adapters/graphql"
	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	sampleaction "github.com/mcpdecl/mcpdecl/adapters/sample"
	sqlaction "github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
)

// Registry returns a new registry of every adapter mcpdecl is built with,
// in the order the reference lists their blocks.
func Registry() *engine.Registry {
	return engine.NewRegistry(httpaction.New(), graphqlaction.New(), execaction.New(), sqlaction.New(), sampleaction.New())
}
