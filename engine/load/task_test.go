package load_test

import (
	"strings"
	"testing"
	"time"
)

// TestTaskBlockErrors: a task block's values are checked at load, a tool
// that runs as a task cannot answer from a cache, and the tasks block's
// store needs its Redis URL; each error says what to do.
func TestTaskBlockErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`tool "t" {
  description = "A tool."
  task {
    support = "always"
  }
}`, "optional"},
		{`tool "t" {
  description = "A tool."
  task {
    ttl = "10ms"
  }
}`, "ttl"},
		{`tool "t" {
  description = "A tool."
  task {
    confirm = "later"
  }
}`, "in_task"},
		{`tool "t" {
  description = "A tool."
  annotations {
    read_only_hint = true
  }
  cache {
    ttl = "1m"
  }
  task {}
}`, "Cache of a tool that runs as a task"},
		{`tasks {
  store = "redis"
}`, "Missing redis_url"},
		{`tasks {
  max_per_caller = 0
}`, "max_per_caller"},
	} {
		_, diags := loadString(t, c.src, nil, nil)
		if !diags.HasErrors() || !strings.Contains(describe(diags), c.want) {
			t.Errorf("want an error about %q, got:\n%s\nfor:\n%s", c.want, describe(diags), c.src)
		}
	}
	cfg, diags := loadString(t, `tasks {
  max_per_caller = 3
}
tool "t" {
  description = "A tool."
  task {
    support       = "required"
    ttl           = "2h"
    poll_interval = "500ms"
    max_result    = 1000
    confirm       = "in_task"
  }
}`, nil, nil)
	if diags.HasErrors() {
		t.Fatalf("a valid task block does not load:\n%s", describe(diags))
	}
	tool, _ := cfg.Tool("t")
	if ts := tool.Task(); ts == nil || !ts.Required || ts.TTL != 2*time.Hour || ts.PollInterval != 500*time.Millisecond || ts.MaxResult != 1000 || ts.AskFirst {
		t.Errorf("the task block read as %+v", ts)
	}
	if cfg.Settings.TasksPerCaller != 3 {
		t.Errorf("max_per_caller read as %d", cfg.Settings.TasksPerCaller)
	}
}
