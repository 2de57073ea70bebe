package main

import (
	"bytes"
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestChecksumExampleProgress serves examples/checksum.hcl over stdio and
// calls its tool with a progress token, as a client that shows progress
// would: the program's "n of m" lines arrive as progress notifications,
// and the result holds a line per file.
func TestChecksumExampleProgress(t *testing.T) {
	cmd := exec.Command(binary(t), "serve", "../../examples/checksum.hcl")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var mu sync.Mutex
	var seen []*mcp.ProgressNotificationParams
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, req.Params)
		},
	})
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v\nstderr: %s", err, stderr.String())
	}
	defer session.Close()

	params := &mcp.CallToolParams{Name: "checksum", Arguments: map[string]any{"dir": "testdata/checksum"}}
	params.SetProgressToken("sums")
	res, err := session.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("checksum: %v %+v\nstderr: %s", err, res, stderr.String())
	}
	files, _ := res.StructuredContent.(map[string]any)["files"].([]any)
	if len(files) != 2 {
		t.Errorf("files: %v, want a line for each of the two files", res.StructuredContent)
	}
	// The client may handle a notification after the result it came
	// before.
	got := make(chan struct{})
	go func() {
		defer close(got)
		for {
			mu.Lock()
			n := len(seen)
			mu.Unlock()
			if n > 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	select {
	case <-got:
	case <-time.After(enginetest.Patience):
		t.Fatal("no progress notification for a call with a progress token")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range seen {
		if p.ProgressToken != "sums" || p.Total != 2 || p.Progress < 1 || p.Progress > 2 {
			t.Errorf("progress %+v, want token sums and 1 or 2 of 2 files", p)
		}
	}
}
