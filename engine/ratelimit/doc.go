// Package ratelimit limits how often tools are called: the top-level
// rate_limit block, which sets the default limit of every tool and where the
// buckets live, and the rate_limit block of a tool, which sets its own.
//
//	rate_limit {
//	  requests  = 60                 # required: calls allowed per `per`
//	  per       = "1m"               # required: a duration
//	  burst     = 10                 # calls allowed at once (default: requests)
//	  store     = "redis"            # "memory" (the default) or "redis"
//	  redis_url = env("REDIS_URL")   # with store = "redis": redis://[:password@]host:port[/db]
//	  prefix    = "mcpdecl"          # the prefix of Redis keys (default "mcpdecl")
//	}
//
//	tool "search" {
//	  rate_limit {
//	    requests = 5
//	    per      = "1s"
//	  }
//	}
//
// A limit is kept per tool and per client: each pair of a tool and a caller
// (the subject of its token, else its address, else "local" for stdio) has
// a bucket of its own. A tool's rate_limit block replaces the top-level
// default for that tool; a tool with neither is not limited.
//
// The buckets follow the generic cell rate algorithm: a bucket holds burst
// calls and refills at requests per `per`, one call every per/requests. A
// refused call is a tool error that says when to retry.
//
// With store = "memory", buckets live in the process: each replica of a
// server counts on its own. They are sharded, so that calls of different
// tools and clients do not wait on one lock, and bounded: buckets that are
// full again are dropped, and at most 100,000 are kept.
//
// With store = "redis", buckets live in Redis, updated by one Lua script
// that reads Redis's own clock, so that every replica pointed at the same
// Redis enforces one limit, whatever their clocks say. Keys expire when
// their bucket is full again. When Redis cannot be reached within a second,
// the call is refused (the limiter fails closed), with an error that names
// Redis's address but never its password.
package ratelimit
