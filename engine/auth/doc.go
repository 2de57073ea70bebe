// Package auth decides who may call the server over HTTP: the top-level auth
// block. The server is an OAuth 2.1 resource server, as the MCP
// authorization specification asks. Over stdio no token is asked for: the
// client started the server.
//
//	auth {
//	  # Static bearer tokens, any number. The label names the client in
//	  # logs, audit lines and rate limits.
//	  token "ci-bot" {
//	    value  = env("CI_BOT_TOKEN")   # required; or file("ci-bot.token")
//	    scopes = ["tickets:read"]      # optional: what the token grants
//	  }
//
//	  # OAuth 2.1: JWT access tokens from an authorization server. At most one.
//	  oauth {
//	    jwks_url = "https://idp.example.com/.well-known/jwks.json"  # required
//	    issuer   = "https://idp.example.com"                        # required
//	    audience = "https://mcp.example.com/mcp"                    # required
//	    resource = "https://mcp.example.com/mcp"                    # default: audience
//	    authorization_servers = ["https://idp.example.com"]         # default: [issuer]
//	    scopes_supported      = ["tickets:read", "tickets:write"]   # optional
//	    leeway   = "30s"                                            # default: 30s
//	    claims   = ["tenant"]       # claims programs may read as caller.claims.<name>
//	  }
//	}
//
// An auth block needs at least one token block or an oauth block; it may
// have both.
//
// # Static tokens
//
// A token's value is trimmed of surrounding whitespace (so that a file
// ending in a newline works) and must then be at least 16 bytes long —
// shorter ones can be guessed; use the output of openssl rand -hex 32 — and
// hold only visible ASCII characters, as an Authorization header must. Two
// tokens may not share a name or a value. Values are secrets: they are
// redacted from every text that leaves the server, and never printed in
// messages or logs, whatever their source.
//
// A token sent is compared with every declared one in constant time (by
// their SHA-256 digests, so that not even its length tells them apart).
// Its client's identity is the block's label, and it grants the token's
// scopes. It never expires: remove it from the file and reload to revoke it.
//
// # OAuth
//
// Any token that is not a static one must be a JWT access token:
//
//   - signed with RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384,
//     ES512 or EdDSA by a key of the JWKS at jwks_url, named by the token's
//     kid (a token without kid is checked against a set of one signing
//     key). If the key states an alg, it must be the token's. Unsigned
//     (alg none) and HMAC (HS256…) tokens are refused, so a public key can
//     never serve as a shared secret; keys of the set meant for another
//     use than signatures, symmetric ones (kty oct), RSA keys shorter than
//     2048 bits and EC keys on other curves than P-256, P-384 and P-521
//     are never used;
//   - whose iss equals issuer, and whose aud is or holds audience;
//   - with an exp in the future, and nbf and iat, when present, not in it,
//     give or take leeway (at most 5m);
//   - with a sub, which is the client's identity.
//
// Its scopes are those of its scope claim (space-separated, or a list) or
// else its scp claim (a list, or space-separated).
//
// jwks_url must be https (plain http is allowed for localhost). The JWKS is
// fetched when serve starts (serve refuses to start if it cannot be), then
// kept fresh in the background as its answers' Cache-Control says, between
// every 15 minutes and every hour. A token whose kid the set lacks makes it
// be fetched again at once — keys rotate — but such fetches, and those of
// readiness checks, happen at most once every 10 seconds, whatever the
// traffic, so that tokens with made-up kids cannot flood the authorization
// server. A fetch gives up after 10 seconds, and refuses sets larger than
// 1 MiB. If a refresh fails, the keys fetched before are kept.
//
// resource is the server's canonical URL, as clients reach it (RFC 8707):
// an https (or loopback http) URL without query or fragment. The
// protected-resource metadata document (RFC 9728) is served, without a
// token, at /.well-known/oauth-protected-resource followed by the path of
// resource — for https://mcp.example.com/mcp,
// https://mcp.example.com/.well-known/oauth-protected-resource/mcp — and
// says:
//
//	{
//	  "resource": "https://mcp.example.com/mcp",
//	  "authorization_servers": ["https://idp.example.com"],
//	  "scopes_supported": ["tickets:read", "tickets:write"],
//	  "bearer_methods_supported": ["header"]
//	}
//
// # Answers
//
// Every request to the MCP endpoint needs an Authorization: Bearer header.
// One without a valid token is answered 401 Unauthorized, with this
// challenge when there is an oauth block:
//
//	WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="tickets:read tickets:write"
//
// (scope only when scopes_supported is set), and with static tokens only:
//
//	WWW-Authenticate: Bearer realm="mcpdecl"
//
// When a bearer token was sent and refused, the challenge adds
// error="invalid_token" and an error_description that says why in a few
// words, such as "the token has expired (exp)" (RFC 6750 §3); the answer's
// body says the same. Neither ever holds the token. The reason is logged
// too, with details (such as the kid, or why the JWKS could not be
// fetched) that clients are not told.
//
// # Scopes
//
// A tool's scopes attribute lists those a token must all grant: the tool is
// left out of tools/list for the other tokens, and calling it is refused. A
// tool without scopes is open to every client with a valid token.
//
// # Why the JWKS reader is ours
//
// jwk.go and jwks.go read and refresh the key set themselves. The library
// that does it for golang-jwt, github.com/MicahParks/keyfunc/v3 (v3.9.1,
// with github.com/MicahParks/jwkset v0.11.4), was measured against them:
// this package's tests were run against it, behind a wrapper that capped
// the body and kept the timeouts and the redirect policy. It adds 188 KB to
// the binary, and serve's memory is the same, but the tests that guard
// against abuse failed, for what the library does:
//
//   - a token with an unknown kid waits for the library's rate limiter
//     (up to the fetch timeout) before it is refused, where ours answers
//     at once with how the last fetch ended: 20 such tokens among 2000
//     calls took 200 s instead of 1.5 s, and every request of a flood is
//     held;
//   - a token without kid is checked against every key of the set, keys
//     meant for encryption (use enc) included, and RSA keys shorter than
//     2048 bits are used;
//   - one malformed key makes the whole set be refused (so a rotation is
//     not seen), while a 200 answer that is not a key set, such as
//     {"error":"forbidden"}, empties it (so every token is refused);
//   - the set is refreshed at a fixed interval, not as Cache-Control says,
//     and the refresh for an unknown kid runs in the context of the
//     request that asked for it.
//
// Wrapping all of that away would mean writing the refresher and the key
// selection again around the library, so they stay here.
package auth
