package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mccutchen/go-httpbin/v2/httpbin"

	"github.com/mcpdecl/mcpdecl/adapters"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestStepsChain checks the steps workload compares like with like: the
// three-step tool's outputs are the three one-step tools' outputs
// together, against go-httpbin and the seeded database.
func TestStepsChain(t *testing.T) {
	up := httptest.NewServer(httpbin.New())
	defer up.Close()
	dir := t.TempDir()
	st := &setup{dir: dir, upstream: up.URL, db: filepath.Join(dir, "shop.db")}
	if err := seed(st.db); err != nil {
		t.Fatal(err)
	}
	file := st.config(10)
	if err := os.WriteFile(file, []byte(config(st, 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: adapters.Registry()}, file)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer cfg.Close()
	if n := len(cfg.Tools); n != 10 {
		t.Errorf("the configuration of 10 tools has %d", n)
	}
	call := func(c call) map[string]any {
		t.Helper()
		tool, ok := cfg.Tool(c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		args, _ := json.Marshal(c.args)
		res := tool.Call(context.Background(), args)
		if res.IsError {
			t.Fatalf("%s: %s", c.tool, res.Text())
		}
		return res.Structured
	}
	want := map[string]any{}
	for _, c := range stepsOneStep {
		maps.Copy(want, call(c))
	}
	got := call(stepsChain)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chain answers %v, the three tools together %v", got, want)
	}
	if got["echoed"] != "Yours Truly" || got["name"] != "item 41" {
		t.Errorf("chain answers %v", got)
	}
}
