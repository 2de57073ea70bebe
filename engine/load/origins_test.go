package load_test

import (
	"slices"
	"strings"
	"testing"
)

// TestServerConnectionSettings: allowed_origins and max_connections reach
// the settings, origins in the form a browser sends them; a malformed
// origin is an error on its own element.
func TestServerConnectionSettings(t *testing.T) {
	src := `server {
  allowed_origins = ["https://App.Example.com", "http://localhost:3000/", "*"]
  max_connections = 50
}
tool "x" {
  description = "d"
  fake { body = "x" }
  text = "x"
}`
	cfg, diags := loadString(t, src, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	if want := []string{"https://app.example.com", "http://localhost:3000", "*"}; !slices.Equal(cfg.Settings.AllowedOrigins, want) {
		t.Errorf("allowed_origins = %q, want %q", cfg.Settings.AllowedOrigins, want)
	}
	if cfg.Settings.MaxConnections != 50 {
		t.Errorf("max_connections = %d, want 50", cfg.Settings.MaxConnections)
	}

	cfg, diags = loadString(t, `tool "x" {
  description = "d"
  fake { body = "x" }
  text = "x"
}`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	if len(cfg.Settings.AllowedOrigins) != 0 || cfg.Settings.MaxConnections != 1024 {
		t.Errorf("defaults: allowed_origins %q, max_connections %d; want none and 1024", cfg.Settings.AllowedOrigins, cfg.Settings.MaxConnections)
	}

	tests := []struct{ src, want string }{
		{`allowed_origins = ["https://ok.example", "app.example.com"]`, `2:44-2:61: Invalid origin: "app.example.com" is not an origin`},
		{`allowed_origins = ["https://app.example.com/path"]`, `2:22-2:52: Invalid origin`},
		{`allowed_origins = ["null"]`, `Invalid origin: "null" is not an origin`},
		{`allowed_origins = "https://app.example.com"`, `2:21-2:46: Invalid allowed_origins`},
		{`max_connections = 0`, `Invalid max_connections`},
	}
	for _, tt := range tests {
		_, diags := loadString(t, "server {\n  "+tt.src+"\n}\n", nil, nil)
		if got := describe(diags); !strings.Contains(got, tt.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}
