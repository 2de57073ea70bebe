package graphqlaction

import "github.com/mcpdecl/mcpdecl/engine/spec"

// Spec declares the graphql block of a tool.
var Spec = &spec.Block{
	Name:    "graphql",
	In:      "tool",
	Summary: "Sends one GraphQL operation per call to an http_api.",
	Doc: "The operation is posted as JSON (query, operationName, variables) to the api's base_url, or to path under it. " +
		"With schema, the query is checked when the files load (an unknown field, an argument of the wrong type, an undeclared variable is an error that points inside the query text, or inside the file file() read), " +
		"the variables are checked against the operation's definitions, and data is typed from the selection, so an output that reads a field the query does not select is a load error too. " +
		"A query is read-only, a mutation is not; a subscription is refused. " +
		"Programs after the call read data, errors (the server's, each with message and path), status and headers. " +
		"A response with errors, or one that is not a GraphQL response (an HTML error page, JSON with neither data nor errors), fails the call with the server's messages; " +
		"error_if replaces that rule, for instance error_if = expr(\"data == nil\") to keep partial data.",
	Example: `graphql {
  api   = http_api.weather
  path  = "/graphql"
  query = <<-GQL
    query Forecast($id: ID!) {
      forecast(city: $id) { temperature conditions }
    }
  GQL
  variables = { id = expr("args.id") }
}`,
	Attrs: []*spec.Attr{
		spec.Any("api", "is the http_api the operation is sent to, as http_api.<name>: its auth, headers, hosts, retries and timeout apply").Mandatory().Unevaluated(),
		spec.String("path", "is where the GraphQL endpoint is, under the api's base_url, such as \"/graphql\"").DefaultIs("the base_url itself"),
		spec.String("query", "is the GraphQL document: one operation, or several and operation to name one; write it in a heredoc, or read it with file(\"name.graphql\")").Mandatory(),
		spec.String("operation", "names the operation of query to run, when it holds several"),
		spec.String("schema", "is the path of the API's schema, as SDL (a .graphql file) or the JSON result of an introspection query; with it, query is validated at load and data is typed from its selection"),
		spec.Expr("variables", "are the operation's variables: an object whose values may be expr() programs reading args"),
		spec.Duration("timeout", "bounds the request").DefaultIs("the api's timeout"),
	},
}
