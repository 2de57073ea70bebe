package httpaction_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestEmptyCredential loads an API whose credential comes from an
// environment variable that is not set: the configuration loads with a
// warning (so that it can be validated and listed before any secret is
// set), a call fails before anything is sent with an error naming what to
// set, and once it is set the same configuration sends it.
func TestEmptyCredential(t *testing.T) {
	var hits atomic.Int32
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(r.Header.Get("Authorization") + r.Header.Get("X-Key") + r.URL.RawQuery))
	}))
	t.Cleanup(upstream.Close)

	tests := []struct {
		name, auth, want string
	}{
		{"bearer via variable", `bearer = var.token`, `the bearer token of http_api "api" is empty: set the environment variable DEMO_TOKEN`},
		{"bearer direct", `bearer = env("DEMO_KEY")`, `the bearer token of http_api "api" is empty: set the environment variable DEMO_KEY`},
		{"api key in a header", `api_key {
    header = "X-Key"
    value  = var.token
  }`, `the API key of http_api "api" is empty: set the environment variable DEMO_TOKEN`},
		{"api key in the query", `api_key {
    query = "key"
    value = var.plain
  }`, `the API key of http_api "api" is empty: give variable "plain" a value with --var plain=VALUE or the environment variable MCPDECL_VAR_plain`},
		{"basic", `basic {
    username = env("DEMO_USER")
    password = var.token
  }`, `the password of http_api "api" is empty: set the environment variable DEMO_TOKEN`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `
variable "token" {
  type      = string
  sensitive = true
  default   = env("DEMO_TOKEN")
}
variable "plain" {
  type    = string
  default = ""
}
http_api "api" {
  base_url = "` + upstream.URL + `"
  auth {
  ` + tt.auth + `
  }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/"
  }
}
`
			load1 := func(env map[string]string) (*engine.Config, hcl.Diagnostics) {
				cfg, diags := loadSource(t, src, env)
				if diags.HasErrors() {
					t.Fatal(diags.Error())
				}
				return cfg, diags
			}
			cfg, diags := load1(nil)
			if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || diags[0].Summary != "Empty credential" {
				t.Fatalf("diagnostics: %v", diags)
			}
			tool, _ := cfg.Tool("get")
			res := tool.Call(context.Background(), nil)
			if !res.IsError || res.Text() != tt.want {
				t.Errorf("result: %v %q\nwant %q", res.IsError, res.Text(), tt.want)
			}
			if hits.Load() != 0 {
				t.Errorf("the upstream was called %d times without a credential", hits.Load())
			}

			set := map[string]string{"DEMO_TOKEN": "s3cret", "DEMO_KEY": "s3cret", "DEMO_USER": "ann", "MCPDECL_VAR_plain": "s3cret"}
			cfg, diags = load1(set)
			if len(diags) != 0 {
				t.Fatalf("diagnostics once set: %v", diags)
			}
			tool, _ = cfg.Tool("get")
			res = tool.Call(context.Background(), nil)
			if res.IsError || strings.Contains(res.Text(), "s3cret") || res.Text() == "" {
				t.Errorf("once set: %v %q (the secret must be sent, and redacted from the result)", res.IsError, res.Text())
			}
			hits.Store(0)
		})
	}
}

// TestEmptySecretHeader checks that an http_api header holding a sensitive
// value that is empty (an API key required along with auth, as the
// importer writes) is an empty credential too: a warning, and calls that
// fail naming what to set.
func TestEmptySecretHeader(t *testing.T) {
	src := `
variable "tenant" {
  type      = string
  sensitive = true
  default   = env("DEMO_TENANT")
}
http_api "api" {
  base_url = "https://api.example.com"
  headers  = { "X-Tenant" = var.tenant }
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/"
  }
}
`
	cfg, diags := loadSource(t, src, nil)
	if diags.HasErrors() || len(diags) != 1 || diags[0].Summary != "Empty credential" {
		t.Fatalf("diagnostics: %v", diags)
	}
	tool, _ := cfg.Tool("get")
	res := tool.Call(context.Background(), nil)
	want := `the header X-Tenant of http_api "api" is empty: set the environment variable DEMO_TENANT`
	if !res.IsError || res.Text() != want {
		t.Errorf("result: %v %q\nwant %q", res.IsError, res.Text(), want)
	}
}
