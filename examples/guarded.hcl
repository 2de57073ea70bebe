# A server fit for a network: who may call (bearer tokens with scopes), how
# often (rate limits, shared by every replica through Redis when
# RATE_LIMIT_REDIS_URL is set), what leaves (results capped, secrets
# redacted) and an audit line per call.
#
#   export TEAM_TOKEN=$(openssl rand -hex 24) ADMIN_TOKEN=$(openssl rand -hex 24)
#   mcpdecl serve --http 127.0.0.1:8080 examples/guarded.hcl
#
# Clients send Authorization: Bearer $TEAM_TOKEN. The tools compute their
# results from their arguments, so the example runs anywhere.

server {
  name             = "guarded"
  max_result_bytes = 4096
}

auth {
  token "team" {
    value  = env("TEAM_TOKEN")
    scopes = ["notes:read"]
  }
  token "admin" {
    value  = env("ADMIN_TOKEN")
    scopes = ["notes:read", "notes:admin"]
  }
}

# Every tool: 60 calls a minute per client, 10 at once.
rate_limit {
  requests  = 60
  per       = "1m"
  burst     = 10
  store     = env("RATE_LIMIT_REDIS_URL") == "" ? "memory" : "redis"
  redis_url = env("RATE_LIMIT_REDIS_URL")
  prefix    = env("RATE_LIMIT_PREFIX", "mcpdecl")
}

# One JSON line per call on stderr; argument values too, sensitive ones
# masked.
audit {
  arguments = true
}

tool "shout" {
  description = "Returns the text in capitals."
  scopes      = ["notes:read"]
  # A tighter limit of its own: 3 calls a minute per client.
  rate_limit {
    requests = 3
    per      = "1m"
  }
  arg "text" {
    type       = string
    max_length = 10000
  }
  text = expr("upper(args.text)")
}

tool "rotate_key" {
  description = "Checks an admin password and says which key would be rotated."
  scopes      = ["notes:admin"]
  arg "key" { type = string }
  arg "password" {
    type      = string
    sensitive = true
  }
  # The password is echoed on purpose: it is redacted from the result.
  text = expr("'rotating ' + args.key + ' as ' + args.password")
}
