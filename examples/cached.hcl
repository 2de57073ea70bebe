# Results kept for a while: a read-only tool answers the same call from its
# cache instead of calling its upstream again, in this process or, when
# CACHE_REDIS_URL is set, in Redis, shared by every replica.
#
#   mcpdecl serve --http 127.0.0.1:8080 examples/cached.hcl --var base_url=http://127.0.0.1:8099
#
# go-httpbin's /uuid answers a new UUID on every request: within a minute,
# the same call gives the same one, with _meta {"mcpdecl/cache": {...}}.

server {
  name = "cached"
}

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8099"
}

http_api "httpbin" {
  base_url = var.base_url
  timeout  = "5s"
}

cache {
  store     = env("CACHE_REDIS_URL") == "" ? "memory" : "redis"
  redis_url = env("CACHE_REDIS_URL")
  prefix    = env("CACHE_PREFIX", "mcpdecl")
}

tool "new_uuid" {
  description = "A UUID from httpbin, the same one for every caller for a minute."

  annotations {
    read_only_hint = true
  }

  arg "label" {
    type        = string
    description = "Any label: each label has its own UUID"
    default     = "default"
  }

  http {
    api   = http_api.httpbin
    path  = "/uuid"
    query = { label = expr("args.label") }
  }

  output "uuid" {
    type        = string
    description = "The UUID httpbin made"
    value       = expr("body.uuid")
  }

  cache {
    ttl    = "1m"
    public = true # the same for every caller; without it each caller has its own
  }
}
