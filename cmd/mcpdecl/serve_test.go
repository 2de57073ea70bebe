package main

import (
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// anyToken stands for an auth block.
type anyToken struct{}

func (anyToken) Wrap(next http.Handler) http.Handler { return next }
func (anyToken) MetadataPath() string                { return "" }
func (anyToken) MetadataHandler() http.Handler       { return http.NotFoundHandler() }

// TestWarnOpenAddress: serving HTTP on an address other machines can reach
// without an auth block is warned about at start, saying what, why and
// what to do; on loopback, or with an auth block, nothing is said.
func TestWarnOpenAddress(t *testing.T) {
	open := engine.NewConfig(engine.ServerInfo{Name: "t", Version: "1"}, engine.DefaultSettings(), nil, &text.Redactor{}, nil)
	guarded := engine.NewConfig(engine.ServerInfo{Name: "t", Version: "1"}, engine.DefaultSettings(), nil, &text.Redactor{}, []any{anyToken{}})
	tests := []struct {
		cfg  *engine.Config
		addr string
		warn bool
	}{
		{open, "0.0.0.0:8080", true}, // the container's
		{open, "[::]:8080", true},
		{open, "192.0.2.10:8080", true},
		{open, "127.0.0.1:8080", false},
		{open, "[::1]:8080", false},
		{guarded, "0.0.0.0:8080", false},
	}
	for _, tt := range tests {
		var logs bytes.Buffer
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		warnOpenAddress(tt.cfg, addr, slog.New(slog.NewTextHandler(&logs, nil)))
		got := logs.String()
		if !tt.warn {
			if got != "" {
				t.Errorf("%s (auth block: %v): logged %q, want nothing", tt.addr, hasAuth(tt.cfg), got)
			}
			continue
		}
		for _, want := range []string{"level=WARN", "no auth block", "anyone who reaches it can list and call every tool", "Add an auth block", "127.0.0.1", "address=" + addr.String()} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: logged %q, want %q in it", tt.addr, got, want)
			}
		}
	}
}
