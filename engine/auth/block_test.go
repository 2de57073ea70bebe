package auth_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/auth"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// secret is the token value the sources below use; it must never show.
const secret = "s3cret-token-0123456789"

// decode decodes the auth block of src, with var.tok (sensitive) and
// var.scopes defined.
func decode(t *testing.T, src string) (*auth.Config, hcl.Diagnostics, *text.Redactor) {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	blocks := file.Body.(*hclsyntax.Body).Blocks
	if len(blocks) != 1 || blocks[0].Type != "auth" {
		t.Fatalf("no auth block: %v", blocks)
	}
	ctx := &engine.DecodeContext{
		EvalContext: &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
			"tok":    cty.StringVal(secret).Mark(engine.SensitiveMark),
			"scopes": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}).Mark(engine.SensitiveMark),
		})}},
		Redactor: &text.Redactor{},
		Settings: engine.DefaultSettings(),
	}
	cfg, diags := auth.Decode(blocks[0].AsHCLBlock(), ctx)
	return cfg, diags, ctx.Redactor
}

func TestDecode(t *testing.T) {
	const oauth = `
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"`
	tests := []struct {
		name, src string
		want      *auth.Config // nil: diags
		diags     string       // enginetest.Describe
	}{
		{
			name: "tokens",
			src: `auth {
  token "ci-bot" {
    value  = "  ` + secret + `\n"
    scopes = ["read", "write"]
  }
  token "sensitive" {
    value  = "${var.tok}-2"
    scopes = var.scopes
  }
}`,
			want: &auth.Config{Tokens: []auth.Token{
				{Subject: "ci-bot", Value: secret, Scopes: []string{"read", "write"}},
				{Subject: "sensitive", Value: secret + "-2", Scopes: []string{"a", "b"}},
			}},
		},
		{
			name: "oauth defaults",
			src:  "auth {\n  oauth {" + oauth + "\n  }\n}",
			want: &auth.Config{OAuth: &auth.OAuth{
				JWKSURL: "https://idp.example.com/jwks", Issuer: "https://idp.example.com", Audience: "https://mcp.example.com/mcp",
				Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://idp.example.com"}, Leeway: 30 * time.Second,
			}},
		},
		{
			name: "oauth in full, and a token",
			src: `auth {
  token "ci-bot" { value = var.tok }
  oauth {
    jwks_url = "http://localhost:8080/jwks"
    issuer   = "https://idp.example.com/realms/x"
    audience = "api://mcp"
    resource = "https://mcp.example.com/"
    authorization_servers = ["https://idp.example.com/realms/x", "https://other.example.com"]
    scopes_supported      = ["read", "write"]
    leeway   = "5m"
  }
}`,
			want: &auth.Config{
				Tokens: []auth.Token{{Subject: "ci-bot", Value: secret}},
				OAuth: &auth.OAuth{
					JWKSURL: "http://localhost:8080/jwks", Issuer: "https://idp.example.com/realms/x", Audience: "api://mcp",
					Resource: "https://mcp.example.com/", AuthorizationServers: []string{"https://idp.example.com/realms/x", "https://other.example.com"},
					ScopesSupported: []string{"read", "write"}, Leeway: 5 * time.Minute,
				},
			},
		},
		{name: "empty", src: "auth {\n}", diags: "1:1-1:5: Empty auth block: An auth block lets in the requests that carry one of its tokens, and it has none: add token \"name\" { value = … } blocks, an oauth { … } block, or both.\n"},
		{name: "unknown attribute", src: "auth {\n  tokens = 1\n}", diags: "2:3-2:9: Unsupported argument: An argument named \"tokens\" is not expected here.\n"},
		{name: "missing value", src: "auth {\n  token \"x\" {\n  }\n}", diags: "2:13-2:13: Missing required argument: The argument \"value\" is required, but no definition was found.\n"},
		{name: "short", src: "auth {\n  token \"bot\" {\n    value = \"short\"\n  }\n}", diags: "3:13-3:20: Token too short: The token \"bot\" is shorter than 16 bytes, short enough to be guessed; use a random value, such as the output of: openssl rand -hex 32.\n"},
		{name: "empty value", src: "auth {\n  token \"bot\" {\n    value = \" \"\n  }\n}", diags: "3:13-3:16: Empty token: The token \"bot\" has no value; when it comes from env(…) or file(…), check that the variable is set or that the file is not empty.\n"},
		{name: "space inside", src: "auth {\n  token \"bot\" {\n    value = \"abcdefgh ijklmnopq\"\n  }\n}", diags: "3:13-3:33: Invalid token: The token \"bot\" holds a space, a control character or a non-ASCII character, which an Authorization header cannot carry; use letters, digits and -._~+/= only.\n"},
		{name: "not a string", src: "auth {\n  token \"bot\" {\n    value = [1]\n  }\n}", diags: "3:13-3:16: Incorrect value type: This must be a string; got tuple.\n"},
		{name: "same value", src: "auth {\n  token \"a\" {\n    value = var.tok\n  }\n  token \"b\" {\n    value = \"" + secret + "\"\n  }\n}", diags: "6:13-6:38: Duplicate token value: The tokens \"a\" and \"b\" have the same value: give each client a token of its own, so that it can be told apart and revoked.\n"},
		{name: "same name", src: "auth {\n  token \"a\" {\n    value = var.tok\n  }\n  token \"a\" {\n    value = \"other-token-0123456789\"\n  }\n}", diags: "5:9-5:12: Duplicate token: A token named \"a\" is already declared at t.hcl:2,3-12; give each client a name of its own.\n"},
		{name: "empty name", src: "auth {\n  token \"\" {\n    value = var.tok\n  }\n}", diags: "2:9-2:11: Invalid token name: The name of a token identifies its client in logs, audit lines and rate limits; it must not be empty or hold control characters.\n"},
		{name: "scopes not a list", src: "auth {\n  token \"bot\" {\n    value = var.tok\n    scopes = \"a\"\n  }\n}", diags: "4:14-4:17: Invalid scopes: The scopes must be a list of strings without spaces, such as [\"tickets:read\", \"tickets:write\"].\n"},
		{name: "scope with a space", src: "auth {\n  token \"bot\" {\n    value = var.tok\n    scopes = [\"a b\"]\n  }\n}", diags: "4:14-4:21: Invalid scopes: The scopes must be a list of strings without spaces, such as [\"tickets:read\", \"tickets:write\"].\n"},
		{name: "two oauth blocks", src: "auth {\n  oauth {" + oauth + "\n  }\n  oauth {" + oauth + "\n  }\n}", diags: "7:3-7:8: Duplicate oauth block: An auth block takes one oauth block, already declared at t.hcl:2,3-8; merge them.\n"},
		{name: "missing audience", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"https://idp\"\n  }\n}", diags: "2:9-2:9: Missing required argument: The argument \"audience\" is required, but no definition was found.\n"},
		{name: "empty issuer", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"\"\n    audience = \"https://mcp/mcp\"\n    authorization_servers = [\"https://idp\"]\n  }\n}", diags: "4:14-4:16: Empty issuer: The issuer must not be empty.\n"},
		{name: "plain http", src: "auth {\n  oauth {\n    jwks_url = \"http://idp.example.com/jwks\"\n    issuer = \"https://idp\"\n    audience = \"https://mcp/mcp\"\n  }\n}", diags: "3:16-3:45: Invalid jwks_url: The jwks_url is where the authorization server publishes its keys: \"http://idp.example.com/jwks\" uses plain http, but keys and tokens must travel over https (http is allowed for localhost only).\n"},
		{name: "audience not a URL", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"https://idp\"\n    audience = \"api://mcp\"\n  }\n}", diags: "5:16-5:27: Invalid resource: The resource, this server's URL, defaults to the audience, which is not usable as one: \"api://mcp\" is not an https URL. Set resource to the URL clients reach this server at, such as https://mcp.example.com/mcp.\n"},
		{name: "resource with a query", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"https://idp\"\n    audience = \"x\"\n    resource = \"https://mcp/mcp?x=1\"\n  }\n}", diags: "6:16-6:37: Invalid resource: The resource is this server's URL, as clients reach it: \"https://mcp/mcp?x=1\" has a query or a fragment, which a resource identifier cannot have.\n"},
		{name: "issuer not a URL", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"idp\"\n    audience = \"https://mcp/mcp\"\n  }\n}", diags: "4:14-4:19: Invalid authorization_servers: The authorization servers default to the issuer, which is not usable as one: \"idp\" is not an absolute URL, such as https://idp.example.com. Set authorization_servers to the issuer URLs clients get tokens from.\n"},
		{name: "issuer not a URL, servers set", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"idp\"\n    audience = \"https://mcp/mcp\"\n    authorization_servers = [\"https://idp\"]\n  }\n}"},
		{name: "no servers", src: "auth {\n  oauth {\n    jwks_url = \"https://idp/jwks\"\n    issuer = \"https://idp\"\n    audience = \"https://mcp/mcp\"\n    authorization_servers = []\n  }\n}", diags: "6:29-6:31: Invalid authorization_servers: The list of authorization servers must not be empty: clients find where to get a token in it.\n"},
		{name: "leeway too long", src: "auth {\n  oauth {" + oauth + "\n    leeway = \"1h\"\n  }\n}", diags: "6:14-6:18: Invalid leeway: leeway is the clock skew allowed on a token's exp, nbf and iat: at most 5m0s, not 1h0m0s.\n"},
		{name: "leeway not a duration", src: "auth {\n  oauth {" + oauth + "\n    leeway = \"soon\"\n  }\n}", diags: "6:14-6:20: Invalid duration: \"soon\" is not a positive duration; write a number with a unit, such as \"500ms\", \"10s\" or \"2m\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags, redactor := decode(t, tt.src)
			if got := enginetest.Describe(diags); got != tt.diags {
				t.Errorf("diagnostics\n got %s\nwant %s", got, tt.diags)
			}
			if tt.want != nil && !reflect.DeepEqual(cfg, tt.want) {
				t.Errorf("decoded\n got %s\nwant %s", dump(cfg), dump(tt.want))
			}
			if diags.HasErrors() != (cfg == nil) {
				t.Errorf("config %v with diagnostics %v", cfg, diags)
			}
			for _, shown := range []string{enginetest.Describe(diags), fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg), dump(cfg), logged(cfg)} {
				if strings.Contains(shown, secret) {
					t.Errorf("a token shows: %s", shown)
				}
			}
			if cfg != nil && len(cfg.Tokens) > 0 {
				if got := redactor.Redact("x " + secret + " y"); got != "x "+text.Mask+" y" {
					t.Errorf("the token is not redacted: %q", got)
				}
			}
		})
	}
}

func dump(cfg *auth.Config) string {
	b, err := json.Marshal(cfg)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func logged(cfg *auth.Config) string {
	var b strings.Builder
	logger := slog.New(slog.NewTextHandler(&b, nil))
	logger.Info("x", "cfg", cfg)
	if cfg != nil {
		for _, t := range cfg.Tokens {
			logger.Info("x", "value", t.Value, "token", t)
		}
	}
	slog.New(slog.NewJSONHandler(&b, nil)).Info("x", "cfg", cfg)
	return b.String()
}

// The auth block through the real loader: env() and file() tokens, and the
// authenticator the HTTP front finds among the configuration's resources.
func TestLoaded(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.token"), []byte("file-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := `
auth {
  token "ci-bot" {
    value  = env("CI_BOT_TOKEN")
    scopes = ["read"]
  }
  token "file-bot" {
    value = file("bot.token")
  }
}
`
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(), src, enginetest.Options{Dir: dir, LookupEnv: enginetest.MapEnv(map[string]string{"CI_BOT_TOKEN": secret})})
	if diags.HasErrors() {
		t.Fatal(enginetest.Describe(diags))
	}
	var front server.Authenticator
	for _, r := range cfg.Blocks() {
		if a, ok := r.(server.Authenticator); ok {
			front = a
		}
	}
	if front == nil {
		t.Fatal("no authenticator among the resources")
	}
	srv := httptest.NewServer(front.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "reached")
	})))
	defer srv.Close()
	for token, want := range map[string]int{secret: 200, "file-token-0123456789": 200, "file-token-0123456789x": 401, "": 401} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %q: %d, want %d", cfg.Redactor.Redact(token), resp.StatusCode, want)
		}
	}
	if got := cfg.Redactor.Redact(secret + " file-token-0123456789"); got != text.Mask+" "+text.Mask {
		t.Errorf("redacted: %q", got)
	}

	// An unset variable is an empty token, and the message says where to
	// look.
	_, _, diags = enginetest.Load(t, engine.NewRegistry(), src, enginetest.Options{Dir: dir, LookupEnv: enginetest.MapEnv(nil)})
	if got, want := enginetest.Describe(diags), "4:14-4:33: Empty token: The token \"ci-bot\" has no value; when it comes from env(…) or file(…), check that the variable is set or that the file is not empty.\n"; got != want {
		t.Errorf("unset variable:\n got %s\nwant %s", got, want)
	}
}
