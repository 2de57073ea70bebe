package redisconn

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Store is where a block keeps the state that replicas may share: its
// store ("memory" or "redis"), redis_url and prefix attributes.
type Store struct {
	// Kind is "memory" or "redis".
	Kind string
	// URL is the Redis URL with Kind "redis". It may hold a password:
	// DecodeStore records it as a secret, and it is never printed.
	URL string
	// Prefix starts every Redis key.
	Prefix string
}

// StoreAttrs declares the attributes DecodeStore reads, for a block's
// spec: what names the state ("the buckets").
func StoreAttrs(what string) []*spec.Attr {
	return []*spec.Attr{
		spec.Enum("store", "is where "+what+" live",
			spec.Choice{Value: "memory", Doc: "this process"}, spec.Choice{Value: "redis", Doc: "shared by every replica"}).WithDefault("memory"),
		spec.String("redis_url", `is where Redis is, with store = "redis": redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket[?db=N]`).MaySecret(),
		spec.String("prefix", "starts the key of every entry in Redis, so that several servers can share one Redis").WithDefault("mcpdecl"),
	}
}

// DecodeStore reads the attributes of [StoreAttrs] from v. what names the
// state in messages ("the buckets"), and shares says what Redis is for
// ("share the limits"). It records the URL's secrets with ctx.Redactor and
// checks the URL, but does not connect.
func DecodeStore(v *spec.Values, ctx *engine.DecodeContext, what, shares string) (Store, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	s := Store{Kind: v.String("store"), URL: v.String("redis_url"), Prefix: v.String("prefix")}
	for _, secret := range Secrets(s.URL) {
		ctx.Redactor.Add(secret)
	}
	// An attribute written whose value has errors is reported already.
	failed := func(name string) bool { return v.Written(name) && !v.Has(name) }
	if failed("store") || failed("redis_url") {
		return s, diags
	}
	urlAttr := v.Attr("redis_url")
	switch s.Kind {
	case "memory":
		if s.URL != "" {
			// An empty one is allowed, so that one file can pick its
			// store from the environment.
			diags = append(diags, errorf(urlAttr.NameRange, "Unexpected redis_url",
				`redis_url only matters with store = "redis": add store = "redis" to %s through Redis, or remove redis_url.`, shares))
		}
	case "redis":
		switch {
		case urlAttr == nil:
			diags = append(diags, errorf(v.Attr("store").Expr.Range(), "Missing redis_url",
				`With store = "redis" %s live in Redis: add redis_url = "redis://host:6379", or redis_url = env("REDIS_URL").`, what))
		case s.URL == "":
			diags = append(diags, errorf(urlAttr.Expr.Range(), "Empty redis_url",
				`With store = "redis" %s live in Redis, but redis_url is empty; if it reads an environment variable, set that variable.`, what))
		default:
			if reason := CheckURL(s.URL); reason != "" {
				diags = append(diags, errorf(urlAttr.Expr.Range(), "Invalid redis_url",
					"This is not a Redis URL (%s); %s.", ctx.Redactor.Redact(reason), URLForms))
			}
		}
	}
	if v.Has("prefix") && s.Prefix == "" {
		diags = append(diags, errorf(v.Attr("prefix").Expr.Range(), "Empty prefix",
			`prefix starts the key of every entry in Redis, so that several servers can share one Redis; it must not be empty (the default is "mcpdecl").`))
	}
	return s, diags
}

// DecodeClient is DecodeStore, and with store = "redis" and no errors it
// opens a client of the Redis (role as for [Open]); the client is nil
// otherwise. It does not connect.
func DecodeClient(v *spec.Values, ctx *engine.DecodeContext, what, shares, role string) (Store, *Client, hcl.Diagnostics) {
	s, diags := DecodeStore(v, ctx, what, shares)
	if diags.HasErrors() || s.Kind != "redis" {
		return s, nil, diags
	}
	c, err := Open(s.URL, role)
	if err != nil {
		return s, nil, append(diags, errorf(v.Attr("redis_url").Expr.Range(), "Invalid redis_url", "%s.", err))
	}
	return s, c, diags
}

// errorf is an error diagnostic about rng.
var errorf = spec.Errorf
