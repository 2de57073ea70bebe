package ratelimit_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// password is the Redis password of var.redis_url; it must never show.
const password = "pw-secret-1"

// decodeContext has var.redis_url (sensitive), var.empty and var.port.
func decodeContext() *engine.DecodeContext {
	return &engine.DecodeContext{
		EvalContext: &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
			"redis_url": cty.StringVal("redis://:" + password + "@redis.internal:6379/2").Mark(engine.SensitiveMark),
			"empty":     cty.StringVal(""),
			"n":         cty.NumberIntVal(7),
		})}},
		Redactor: &text.Redactor{},
		Settings: engine.DefaultSettings(),
	}
}

// parse returns the one rate_limit block of src.
func parse(t *testing.T, src string) *hcl.Block {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, diags := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "rate_limit"}}})
	if diags.HasErrors() || len(content.Blocks) != 1 {
		t.Fatalf("no rate_limit block: %v", diags)
	}
	return content.Blocks[0]
}

// block writes a rate_limit block of the given lines.
func block(lines ...string) string {
	return "rate_limit {\n  " + strings.Join(lines, "\n  ") + "\n}"
}

func TestDecode(t *testing.T) {
	const forms = "write redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket[?db=N]"
	tests := []struct {
		name  string
		src   string
		want  *ratelimit.Config // nil: diags
		diags string            // enginetest.Describe
	}{
		{
			name: "defaults",
			src:  block(`requests = 60`, `per = "1m"`),
			want: &ratelimit.Config{Default: ratelimit.Limit{Requests: 60, Per: time.Minute, Burst: 60}, Store: "memory", Prefix: "mcpdecl"},
		},
		{
			name: "redis in full",
			src:  block(`requests = var.n`, `per = "1s"`, `burst = 10`, `store = "redis"`, `redis_url = var.redis_url`, `prefix = "team-a"`),
			want: &ratelimit.Config{Default: ratelimit.Limit{Requests: 7, Per: time.Second, Burst: 10}, Store: "redis",
				RedisURL: "redis://:" + password + "@redis.internal:6379/2", Prefix: "team-a"},
		},
		{
			name: "memory with an empty redis_url",
			src:  block(`requests = 1`, `per = "1h"`, `store = "memory"`, `redis_url = var.empty`),
			want: &ratelimit.Config{Default: ratelimit.Limit{Requests: 1, Per: time.Hour, Burst: 1}, Store: "memory", Prefix: "mcpdecl"},
		},
		{
			name:  "no requests",
			src:   block(`per = "1m"`),
			diags: "1:12-1:12: Missing required argument: The argument \"requests\" is required, but no definition was found.\n",
		},
		{
			name:  "zero requests",
			src:   block(`requests = 0`, `per = "1m"`),
			diags: "2:14-2:15: Invalid requests: requests is how many calls are allowed per period (per): a whole number from 1 to 1000000000, not 0.\n",
		},
		{
			name:  "fractional requests",
			src:   block(`requests = 1.5`, `per = "1m"`),
			diags: "2:14-2:17: Invalid number: This must be a whole number; got 1.5.\n",
		},
		{
			name:  "requests not a number",
			src:   block(`requests = "many"`, `per = "1m"`),
			diags: "2:14-2:20: Incorrect value type: This must be a whole number; got string.\n",
		},
		{
			name:  "zero per",
			src:   block(`requests = 1`, `per = "0s"`),
			diags: "3:9-3:13: Invalid duration: \"0s\" is not a positive duration; write a number with a unit, such as \"500ms\", \"10s\" or \"2m\"\n",
		},
		{
			name:  "per without a unit",
			src:   block(`requests = 1`, `per = 60`),
			diags: "3:9-3:11: Invalid duration: \"60\" is not a positive duration; write a number with a unit, such as \"500ms\", \"10s\" or \"2m\"\n",
		},
		{
			name:  "zero burst",
			src:   block(`requests = 1`, `per = "1s"`, `burst = 0`),
			diags: "4:11-4:12: Invalid burst: burst is how many calls are allowed at once, by a full bucket: a whole number from 1 to 1000000000, not 0.\n",
		},
		{
			name:  "huge burst",
			src:   block(`requests = 1`, `per = "1s"`, `burst = 1e10`),
			diags: "4:11-4:15: Invalid burst: burst is how many calls are allowed at once, by a full bucket: a whole number from 1 to 1000000000, not 10000000000.\n",
		},
		{
			name:  "unknown store",
			src:   block(`requests = 1`, `per = "1s"`, `store = "disk"`),
			diags: "4:11-4:17: Invalid store: store is where the buckets live: \"memory\" (this process) or \"redis\" (shared by every replica), not \"disk\".\n",
		},
		{
			name:  "redis without redis_url",
			src:   block(`requests = 1`, `per = "1s"`, `store = "redis"`),
			diags: "4:11-4:18: Missing redis_url: With store = \"redis\" the buckets live in Redis: add redis_url = \"redis://host:6379\", or redis_url = env(\"REDIS_URL\").\n",
		},
		{
			name:  "redis with an empty redis_url",
			src:   block(`requests = 1`, `per = "1s"`, `store = "redis"`, `redis_url = var.empty`),
			diags: "5:15-5:24: Empty redis_url: With store = \"redis\" the buckets live in Redis, but redis_url is empty; if it reads an environment variable, set that variable.\n",
		},
		{
			name:  "redis_url not a Redis URL",
			src:   block(`requests = 1`, `per = "1s"`, `store = "redis"`, `redis_url = "http://x"`),
			diags: "5:15-5:25: Invalid redis_url: This is not a Redis URL (invalid URL scheme: http); " + forms + ".\n",
		},
		{
			name:  "redis_url with a bad port and a password",
			src:   block(`requests = 1`, `per = "1s"`, `store = "redis"`, `redis_url = "redis://:`+password+`@h:port"`),
			diags: "5:15-5:44: Invalid redis_url: This is not a Redis URL (invalid port \":port\" after host); " + forms + ".\n",
		},
		{
			name:  "redis_url without store",
			src:   block(`requests = 1`, `per = "1s"`, `redis_url = "redis://x"`),
			diags: "4:3-4:12: Unexpected redis_url: redis_url only matters with store = \"redis\": add store = \"redis\" to share the limits through Redis, or remove redis_url.\n",
		},
		{
			name:  "empty prefix",
			src:   block(`requests = 1`, `per = "1s"`, `prefix = ""`),
			diags: "4:12-4:14: Empty prefix: prefix starts the key of every entry in Redis, so that several servers can share one Redis; it must not be empty (the default is \"mcpdecl\").\n",
		},
		{
			name:  "unknown attribute",
			src:   block(`requests = 1`, `per = "1s"`, `limit = 3`),
			diags: "4:3-4:8: Unsupported argument: An argument named \"limit\" is not expected here.\n",
		},
		{
			name: "every error at once",
			src:  block(`requests = 0`, `per = "soon"`, `store = "disk"`),
			diags: "2:14-2:15: Invalid requests: requests is how many calls are allowed per period (per): a whole number from 1 to 1000000000, not 0.\n" +
				"3:9-3:15: Invalid duration: \"soon\" is not a positive duration; write a number with a unit, such as \"500ms\", \"10s\" or \"2m\"\n" +
				"4:11-4:17: Invalid store: store is where the buckets live: \"memory\" (this process) or \"redis\" (shared by every replica), not \"disk\".\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := decodeContext()
			cfg, diags := ratelimit.Decode(parse(t, tt.src), ctx)
			if got := enginetest.Describe(diags); got != tt.diags {
				t.Errorf("diagnostics\n got %s\nwant %s", got, tt.diags)
			}
			if tt.want == nil {
				if cfg != nil {
					t.Errorf("decoded %+v despite errors", *cfg)
				}
			} else if cfg == nil || *cfg != *tt.want {
				t.Errorf("decoded %#v, want %#v", cfg, tt.want)
			}
			// The password is a secret wherever it came from, and never
			// printed.
			if strings.Contains(tt.src, password) || strings.Contains(tt.src, "var.redis_url") {
				if got := ctx.Redactor.Redact("auth " + password); got != "auth "+text.Mask {
					t.Errorf("the password is not redacted: %q", got)
				}
			}
			if cfg != nil {
				for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v %#v %v", *cfg, *cfg, *cfg)} {
					if strings.Contains(s, password) {
						t.Errorf("the password shows when the configuration is printed: %s", s)
					}
				}
			}
		})
	}
}

func TestDecodeLimit(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		want  ratelimit.Limit
		diags string
	}{
		{name: "requests and per", src: block(`requests = 5`, `per = "1s"`), want: ratelimit.Limit{Requests: 5, Per: time.Second, Burst: 5}},
		{name: "burst", src: block(`requests = 5`, `per = "1s"`, `burst = 1`), want: ratelimit.Limit{Requests: 5, Per: time.Second, Burst: 1}},
		{
			name:  "store",
			src:   block(`requests = 5`, `per = "1s"`, `store = "redis"`),
			diags: "4:3-4:8: Unexpected store: Where the buckets live is set once for the server: move store to the top-level rate_limit block.\n",
		},
		{
			name: "redis_url and prefix",
			src:  block(`requests = 5`, `per = "1s"`, `redis_url = var.redis_url`, `prefix = "x"`),
			diags: "4:3-4:12: Unexpected redis_url: Where the buckets live is set once for the server: move redis_url to the top-level rate_limit block.\n" +
				"5:3-5:9: Unexpected prefix: Where the buckets live is set once for the server: move prefix to the top-level rate_limit block.\n",
		},
		{
			name:  "no per",
			src:   block(`requests = 5`),
			diags: "1:12-1:12: Missing required argument: The argument \"per\" is required, but no definition was found.\n",
		},
		{
			name:  "negative requests",
			src:   block(`requests = -1`, `per = "1s"`),
			diags: "2:14-2:16: Invalid requests: requests is how many calls are allowed per period (per): a whole number from 1 to 1000000000, not -1.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, diags := ratelimit.DecodeLimit(parse(t, tt.src), decodeContext())
			if got := enginetest.Describe(diags); got != tt.diags {
				t.Errorf("diagnostics\n got %s\nwant %s", got, tt.diags)
			}
			if l != tt.want {
				t.Errorf("decoded %+v, want %+v", l, tt.want)
			}
		})
	}
}

func TestConfigOpen(t *testing.T) {
	tests := []struct {
		cfg  ratelimit.Config
		want string // the error, if any
	}{
		{cfg: ratelimit.Config{Store: "memory"}},
		{cfg: ratelimit.Config{Store: "redis", RedisURL: "redis://:" + password + "@127.0.0.1:1/0", Prefix: "p"}},
		{cfg: ratelimit.Config{Store: "redis", RedisURL: "redis://:" + password + "@h:port", Prefix: "p"},
			want: "invalid Redis URL (invalid port \":port\" after host): write redis://[[user]:password@]host:port[/db], rediss:// for TLS, or unix:///path/to/socket[?db=N]"},
	}
	for _, tt := range tests {
		s, err := tt.cfg.Open()
		if err != nil {
			if err.Error() != tt.want {
				t.Errorf("%v: %v, want %s", tt.cfg, err, tt.want)
			}
			continue
		}
		if tt.want != "" {
			t.Errorf("%v: no error, want %s", tt.cfg, tt.want)
		}
		if err := s.Close(); err != nil {
			t.Errorf("%v: Close: %v", tt.cfg, err)
		}
	}
}
