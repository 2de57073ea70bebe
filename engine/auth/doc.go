// Package auth decides who may call the server over HTTP: the top-level auth
// block. Over stdio no token is asked for: the client started the server.
//
//	auth {
//	  # Static bearer tokens, any number. The label names the client in
//	  # logs, audit lines and rate limits.
//	  token "ci-bot" {
//	    value  = env("CI_BOT_TOKEN")     # required, at least 16 bytes
//	    scopes = ["tickets:read"]        # what the token grants
//	  }
//
//	  # OAuth 2.1: JWT access tokens from an authorization server.
//	  oauth {
//	    jwks_url = "https://idp.example.com/.well-known/jwks.json"  # required
//	    issuer   = "https://idp.example.com"                        # required
//	    audience = "https://mcp.example.com/mcp"                    # required
//	    resource = "https://mcp.example.com/mcp"                    # default: audience
//	    authorization_servers = ["https://idp.example.com"]         # default: [issuer]
//	    scopes_supported      = ["tickets:read", "tickets:write"]   # advertised
//	    leeway   = "30s"                                            # clock skew allowed
//	  }
//	}
//
// Every request to the MCP endpoint needs an Authorization: Bearer header.
// A static token is compared with each declared one in constant time. Any
// other token must be a JWT signed with RS256, RS384, RS512, PS256, PS384,
// PS512, ES256, ES384, ES512 or EdDSA by a key of the JWKS, whose iss equals
// issuer, whose aud holds audience, with an exp in the future and nbf and
// iat not in it (give or take leeway). Symmetric (HS*) and unsigned tokens
// are refused. The JWKS is fetched when the server starts (serve checks it),
// kept for 15 minutes, and fetched again at once when a token names a key
// it lacks, at most once every 10 seconds whatever the traffic.
//
// A request without a valid token is answered 401 with a WWW-Authenticate
// challenge: Bearer with the URL of the protected-resource metadata (RFC
// 9728) when there is an oauth block, else Bearer realm="mcpdecl", and
// error="invalid_token" when a token was sent. With an oauth block, the
// metadata document is served, without a token, at
// /.well-known/oauth-protected-resource followed by the path of resource.
//
// A token's scopes come from its scope claim (space-separated) or scp claim
// (a list), or from a static token's scopes. A tool's scopes attribute lists
// those a token must all grant: the tool is left out of tools/list for the
// other tokens, and calling it is refused.
//
// Token values are recorded as secrets: they are redacted from every text
// that leaves the server, and never written in messages.
package auth
