package httpaction_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// loadSource writes src to a file and loads it as serve does, with env as
// the whole environment. The configuration, when there is one, is closed
// at the end of the test.
func loadSource(t *testing.T, src string, env map[string]string) (*engine.Config, hcl.Diagnostics) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{
		Registry:  engine.NewRegistry(httpaction.New()),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}, path)
	if cfg != nil {
		t.Cleanup(func() { _ = cfg.Close() })
	}
	return cfg, diags
}
