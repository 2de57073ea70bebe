package redisconn

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
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

// StoreAttributes are the attributes DecodeStore reads, for a block's
// schema.
var StoreAttributes = []hcl.AttributeSchema{{Name: "store"}, {Name: "redis_url"}, {Name: "prefix"}}

// DecodeStore reads the store, redis_url and prefix attributes of content.
// what names the state in messages ("the buckets"), and shares says what
// Redis is for ("share the limits"). It records the URL's secrets with
// ctx.Redactor and checks the URL, but does not connect.
func DecodeStore(content *hcl.BodyContent, ctx *engine.DecodeContext, what, shares string) (Store, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	s := Store{Kind: "memory", Prefix: "mcpdecl"}
	// str reads a string attribute into dst; failed is set when the
	// attribute is there but has errors, already reported.
	failed := map[string]bool{}
	str := func(name string, dst *string) *hcl.Attribute {
		a, ok := content.Attributes[name]
		if !ok {
			return nil
		}
		v, more := ctx.String(a.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			failed[name] = true
			return a
		}
		*dst = v
		return a
	}
	storeAttr := str("store", &s.Kind)
	urlAttr := str("redis_url", &s.URL)
	prefixAttr := str("prefix", &s.Prefix)
	for _, secret := range Secrets(s.URL) {
		ctx.Redactor.Add(secret)
	}
	if failed["store"] || failed["redis_url"] {
		return s, diags
	}
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
			diags = append(diags, errorf(storeAttr.Expr.Range(), "Missing redis_url",
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
	default:
		diags = append(diags, errorf(storeAttr.Expr.Range(), "Invalid store",
			`store is where %s live: "memory" (this process) or "redis" (shared by every replica), not %q.`, what, s.Kind))
	}
	if prefixAttr != nil && s.Prefix == "" {
		diags = append(diags, errorf(prefixAttr.Expr.Range(), "Empty prefix",
			`prefix starts the key of every entry in Redis, so that several servers can share one Redis; it must not be empty (the default is "mcpdecl").`))
	}
	return s, diags
}

func errorf(rng hcl.Range, summary, detail string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()}
}
