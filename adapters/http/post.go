package httpaction

import (
	"net/http"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// PostJSON returns an action that POSTs the JSON of body, computed per
// call from the arguments, to path under api, with header added: the
// transport of the action kinds that speak a protocol over HTTP, such as
// graphql. Its requests and responses are an http action's in every way:
// the api's auth, headers, allowed hosts, retries, breaker, timeout and
// response cap, the traces and metrics; its Run's Vars are status,
// headers, body and content_type. A timeout of 0 is the api's.
func PostJSON(api *API, path string, body mapping.Value, header http.Header, timeout time.Duration) engine.Action {
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	a := &action{
		api:         api,
		method:      http.MethodPost,
		prefix:      api.prefix,
		path:        compilePath(path, nil, nil),
		bodyKind:    jsonBody,
		bodyValue:   body,
		contentType: "application/json",
		timeout:     timeout,
	}
	a.inherit(header)
	return a
}
