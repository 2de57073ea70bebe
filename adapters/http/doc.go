// Package httpaction is the HTTP action of mcpdecl: the http_api top-level
// block, which declares a reusable upstream, and the http action block of a
// tool, which sends one request per call. Its import path ends in /http; the
// package is named httpaction so that it never shadows net/http.
//
// # The http_api block
//
// Its attributes and nested blocks (auth and its schemes, retry, tls,
// circuit_breaker) are declared once, by [APISpec] and the specs it nests;
// docs/language.md lists them with their bounds and defaults.
//
// Every value in it is fixed when the configuration loads. Each http_api owns
// one HTTP client and so one pool of connections, released when the
// configuration is closed. The credentials of auth are recorded as secrets,
// so that they are redacted from any text that leaves the server, and they
// are never written into messages.
//
// A retry block makes a request be sent again, after a jittered exponential
// backoff between min_wait and max_wait, when the response status is one of
// on_status, or when the request failed before any response: always for the
// idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE), and for POST and
// PATCH only when the connection could not be opened, so the server never
// saw the request. A Retry-After header in a response to be retried sets the
// wait, capped by max_wait. Without a retry block nothing is retried.
//
// A circuit_breaker counts the calls the upstream fails (no response, or a
// 5xx status, after any retries; not 4xx answers, nor calls the client gave
// up on): after failures in a row, calls fail at once for open_for, saying
// when the next try is; then one probe call is let through, and its outcome
// closes the breaker or opens it again.
//
// A ca_file replaces the system's certificate authorities for that upstream:
// only certificates it signed are trusted.
//
// With oauth2, the client credentials grant gets the bearer token: at the
// first call, then shared by all calls (one fetch at a time, the others
// waiting), fetched again shortly before it expires (a tenth of its
// lifetime before, at most 10 s) and, once per call, when the upstream
// answers 401. Without auth_style, the credentials go in a basic auth
// header, then in the form's body if the endpoint refuses that; the style
// that worked is logged once and kept. The token endpoint must be https (http
// only on a loopback address), is reached with the api's TLS settings and
// timeout, and may not redirect. Access tokens are redacted like the other
// credentials.
//
// Redirects are followed (at most 10) while they stay on the scheme, host
// and port of the request, or go from http to https on the same host (both
// on their default ports). A redirect to another host fails the call, with
// an error naming the target and the entry to add to allowed_hosts; to a
// host of allowed_hosts it is followed, and carries none of the api's
// credentials: no header but User-Agent, Accept, Accept-Language and
// Content-Type (so neither Authorization, nor an api_key header, nor
// Referer), and no api_key query parameter, which is removed from the
// target's query string. A redirect to another host whose URL still holds
// the api_key elsewhere, in its path for instance, fails. A redirect from
// https to plain http, to a scheme other than http and https, or to a URL
// holding credentials (user:password@) always fails. Cookies are never
// stored.
//
// An allowed_hosts entry is a host name ("api.example.com"), a wildcard for
// its subdomains ("*.example.com", which does not match example.com
// itself) or an IP literal ("10.0.0.1", "[::1]"), each with an optional
// port from 1 to 65535; without a port it allows the scheme's default port
// only (80 for http, 443 for https). Names are compared without regard to
// case or a final dot, after converting international names to punycode as
// the client does before it dials, so "bücher.example" and
// "xn--bcher-kva.example" are one host. An IP address is allowed only when
// an entry names that address; a wildcard never matches one, and neither
// does a name that resolves to it ("localhost" is not "127.0.0.1"). When
// the connection is opened, the addresses a listed name resolves to are
// checked too: a loopback, private, shared, link-local or unspecified one
// is refused unless an entry names it (DNS rebinding). The upstream's own
// host is not checked, nor are requests sent through a proxy from the
// environment, which resolves names itself.
//
// # The http action block
//
// Its attributes and its paginate block are declared by [ActionSpec] and
// [PaginateSpec], and listed in docs/language.md.
//
// With api, path is required and url is not allowed; without it, url is
// required: an absolute http or https URL whose path may hold placeholders,
// or a program yielding the whole URL (see below). With a fixed url,
// allowed_hosts is optional and names the hosts its redirects may go to;
// with api, it belongs on the http_api. An action without api has a client
// of its own, shared by all its calls whichever host they reach, without
// retries, with the server's timeout and response limit unless it sets its
// own.
//
// A path or fixed url may carry a fixed query string after "?", which is
// sent before the parameters of query. Every {name} placeholder needs a
// path_params entry and every entry must be used. A placeholder's value is
// one path segment: it is escaped with [url.PathEscape], "." and ".." are
// sent as %2E and %2E%2E, and an empty value is refused. No argument can
// change the scheme, host or port of a request: the final URL is checked
// against the upstream's before it is sent.
//
// A program, url = expr("…"), yields the whole URL of each request. Such a
// url could reach any host, the server's own network included, so it
// requires allowed_hosts = [...] on the action, and a load error says so
// when it is missing. Before anything is sent, the URL must parse as an
// absolute http or https URL, hold no credentials, and name a host of the
// list, or the call fails with an error naming the host and the entry to
// add to allowed_hosts; every hop of a redirect is checked the same way.
// Its fragment is dropped, and what its query string cannot carry as
// written (a space, a stray "%") is escaped. A program url takes no
// path_params: escape values in the program with pathescape() and
// urlencode(). The parameters of query are added after its own.
//
// Values of path_params, query, headers, form, multipart, body and raw_body may be
// expr("…") programs, run on every call; query, headers and form may also be
// one program yielding a whole map. In query and form a null value leaves
// the parameter out, a list repeats it, and numbers and booleans are written
// plainly (3, 2.5, true). In headers a null value leaves the header out and
// a list sends it once per element. A value holding a control character (CR,
// LF, NUL or another, tab excepted), which could start a header of its own,
// fails the call before anything is sent; so does a name that is not a valid
// header name, or Host, Content-Length or Transfer-Encoding, when headers is
// one program yielding a map. Names and values of query and form are always
// escaped. Headers are applied in this order, a later one replacing an
// earlier one of the same name: User-Agent: mcpdecl, the api's headers, its
// auth, the Content-Type of the body, the action's headers.
//
// body is sent as JSON (Content-Type application/json), form as
// application/x-www-form-urlencoded, multipart as multipart/form-data (a text
// part per field, objects as JSON parts), and raw_body, which must yield a
// string, as text/plain; charset=utf-8; content_type replaces any of these
// but multipart's, whose boundary is its own. At most one of body, form,
// multipart and raw_body may be set.
//
// timeout bounds the whole request: every attempt, the waits between them and
// reading the response.
//
// # What a call returns
//
// The programs that run after the action see
//
//   - status: the HTTP status code, an int;
//   - headers: the response headers by lower-case name ("content-type"), each
//     with its first value;
//   - body: the decoded JSON when the media type is application/json, ends in
//     +json, or is missing and the body parses as JSON; nil for an image or
//     audio body, or an empty JSON one; otherwise the text;
//   - content_type: the media type without its parameters, in lower case
//     ("application/json"), or "" when the response has none.
//
// JSON numbers that are whole and exactly representable reach programs as
// ints, the others as float64.
//
// The result's content is the body as one text block, except for image/* and
// audio/* bodies, which become image or audio content; a body that is not
// UTF-8 text becomes a text block that says what it is. A status of 400 or
// more fails the call by default, with a message such as
//
//	HTTP 503 Service Unavailable from GET https://api.example.com/v1/x: upstream busy
//
// ending with at most 512 bytes of the body on one line; error_if and
// error_message may decide otherwise, as the variables are still set.
//
// A call fails with an error that says what went wrong and where (the method
// and the URL without its query string, which may hold secrets) when no
// response arrives: a connection refused, a name that does not resolve, a
// certificate that is not trusted, the timeout. It also fails when the body is
// larger than max_response_bytes (it is never cut short and parsed), or when
// a response that says it is JSON is not, unless its status is 400 or more, in
// which case the body is kept as text.
//
// A call holds its body and, for JSON, the decoded value, which for a list of
// small objects takes about ten times the body: a tool that does not set
// max_concurrency runs at most [engine.IOConcurrency] calls at once, so that
// memory stays bounded.
package httpaction
