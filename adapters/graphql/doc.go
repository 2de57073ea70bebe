// Package graphqlaction is the graphql action of mcpdecl: a tool that sends
// one GraphQL operation per call to an http_api, and reads its data. Its
// import path ends in /graphql; the package is named graphqlaction so that
// it never shadows a GraphQL library.
//
// The request goes through the HTTP adapter ([httpaction.PostJSON]): the
// api's auth, headers, allowed hosts, retries, breaker, timeout, response
// cap, traces and metrics are an http action's. What this package adds:
//
//   - at load, the query is parsed, and validated against the API's schema
//     when the block names one (SDL or an introspection result): an unknown
//     field, an argument of the wrong type or an undeclared variable is a
//     load error whose range lies inside the query text;
//   - the variables are checked against the operation's definitions;
//   - data is typed from the selection, so that an output program reading
//     a field the query does not select is a load error;
//   - a response with errors, or one that is not a GraphQL response, fails
//     the call with the server's messages (error_if replaces that rule, for
//     a tool that wants partial data).
package graphqlaction
