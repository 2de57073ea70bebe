// Package requeststate is the request_states block: where the request
// states of confirmations and questions already answered are remembered,
// so that each is answered once, by one replica or by any of several
// sharing Redis.
package requeststate

import (
	"context"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// ConfigSpec is the top-level request_states block.
var ConfigSpec = &spec.Block{
	Name:    "request_states",
	Summary: "Where the request states already answered are remembered, so that each is answered once.",
	Doc: "A confirmation's answer comes back with the request state the server signed (see the server block's request_state_keys); " +
		"a state is taken once. Without this block each process remembers the states it took, until they expire; " +
		`with store = "redis", replicas behind a balancer remember them together, and a state answered on one is refused on the others. ` +
		"When Redis cannot be reached, answers are refused, not taken twice.",
	Example: `request_states {
  store     = "redis"
  redis_url = "redis://localhost:6379/0"
}`,
	Attrs: redisconn.StoreAttrs("the request states already answered"),
}

// Decode reads the request_states block and opens its store: nil for the
// memory of this process.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (engine.StateStore, hcl.Diagnostics) {
	v, diags := ConfigSpec.Decode(block.Body, ctx)
	store, client, more := redisconn.DecodeClient(v, ctx, "the request states already answered", "share them", "which remembers the request states answered")
	diags = append(diags, more...)
	if diags.HasErrors() || client == nil {
		return nil, diags
	}
	return &Redis{client: client, prefix: store.Prefix + ":state:"}, diags
}

// Redis remembers the answered states in Redis, each until it expires.
type Redis struct {
	client *redisconn.Client
	prefix string
}

// Answer records nonce until expires; fresh is false when it was there.
func (r *Redis) Answer(ctx context.Context, nonce string, expires time.Time) (bool, error) {
	ttl := max(time.Until(expires), time.Second)
	var fresh bool
	err := r.client.Do(ctx, "record an answered request state", func(ctx context.Context, conn redis.Conn) error {
		reply, err := redis.DoContext(conn, ctx, "SET", r.prefix+nonce, 1, "NX", "PX", ttl.Milliseconds())
		if err != nil {
			return err
		}
		fresh = reply != nil // nil: it was there already
		return nil
	})
	return fresh, err
}

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.client.Close() }
