// Package ratelimit limits how often tools are called, as the MCP
// specification asks of servers: the top-level rate_limit block sets the
// default limit of every tool and where the buckets live, and the
// rate_limit block of a tool sets a limit of its own. A tool's limit is a
// [Limiter], the layer of its per-call path (an engine.CallLayer) that
// refuses the calls beyond it, each client's bucket under a key of its own.
//
// # The top-level block
//
// At most one, anywhere in the configuration:
//
//	rate_limit {
//	  requests  = 60                 # required: calls allowed per `per`, 1 to 1000000000
//	  per       = "1m"               # required: a positive duration, such as "1s", "1m" or "1h"
//	  burst     = 10                 # calls allowed at once, 1 to 1000000000 (default: requests)
//	  store     = "redis"            # "memory" (the default) or "redis"
//	  redis_url = env("REDIS_URL")   # with store = "redis": where Redis is
//	  prefix    = "mcpdecl"          # the start of every Redis key (default "mcpdecl")
//	}
//
// requests and per set the rate at which a bucket refills, and burst how
// many calls a full bucket allows at once. Every tool without a rate_limit
// block of its own has this limit.
//
// redis_url is required with store = "redis", and reads
// redis://[[user]:password@]host:port[/db], rediss:// for TLS, or
// unix:///path/to/socket[?db=N]. It is a secret: it is never printed, in errors,
// logs or listings, and errors name Redis by its address alone. With
// store = "memory", redis_url may be empty, so that one file can choose its
// store from the environment:
//
//	store     = env("REDIS_URL") == "" ? "memory" : "redis"
//	redis_url = env("REDIS_URL")
//
// prefix lets several servers, or several configurations, share one Redis
// without sharing limits: the bucket of a tool and a client is the key
// <prefix>:rl:<tool>:<client>, the client's bytes outside printable ASCII,
// and %, written %XX (jwt:ada%20lovelace): every key can be read and typed
// in redis-cli.
//
// # A tool's block
//
//	tool "search" {
//	  rate_limit {
//	    requests = 5       # required
//	    per      = "1s"    # required
//	    burst    = 5       # default: requests
//	  }
//	}
//
// It replaces the top-level default for that tool. Where the buckets live
// is set once for the server: store, redis_url and prefix are errors here.
// A tool with neither block is not limited.
//
// # What is limited
//
// Each pair of a tool and a client has a bucket of its own: the client is
// the subject of its token, else its address, else "local" for stdio and
// the command line. A client that calls one tool often slows down neither
// other clients nor other tools.
//
// The buckets follow the generic cell rate algorithm, which behaves as a
// token bucket: a bucket holds burst calls and earns one back every
// per/requests. With requests = 60, per = "1m" and burst = 10, a client may
// make 10 calls at once, then one a second. A refused call does not count,
// and is a tool error that says when to retry, rounded up:
//
//	rate limit exceeded for this tool: 60 calls per 1m, 10 at once; retry in 1s
//
// # Where the buckets live
//
// With store = "memory", the buckets live in the process: each replica of a
// server counts on its own, and a reload of the configuration starts every
// bucket full. They are spread over 64 independently locked shards, so that
// calls of different tools and clients rarely wait on one another; a
// decision takes well under a microsecond and allocates nothing. Memory is
// bounded: buckets that are full again carry no state and are dropped, and
// at most 100,000 are kept. Beyond that, the buckets nearest to full, those
// used least lately, are dropped first; a dropped bucket starts full again.
//
// With store = "redis", the buckets live in Redis, shared by every replica
// pointed at it: each decision is one Lua script, run atomically with
// EVALSHA, that reads Redis's own clock, so that replicas whose clocks
// disagree still enforce one limit. A bucket's key expires when the bucket
// is full again, so Redis holds only the buckets in use. A call waits at
// most a second for Redis in all, its rate limit and its cache together
// (see engine.RemoteStoreTime); when Redis cannot be reached in that time
// or answers with an error, the call is refused (the limiter fails closed)
// with an error that names Redis's address, never its password. Redis's
// readiness is part of the server's /readyz.
package ratelimit
