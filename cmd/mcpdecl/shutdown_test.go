package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oneTool writes a configuration with one tool that needs nothing.
func oneTool(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "one.hcl")
	src := "tool \"hello\" {\n  description = \"Says hello.\"\n  text        = \"hello\"\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitLine waits up to 15s for a line of lines holding want.
func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case line := <-lines:
			if strings.Contains(line, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no log line holding %q within 15s", want)
		}
	}
}

// TestServeLogsShutdown: SIGTERM is logged as the reason to shut down,
// then "stopped", over HTTP and over stdio.
func TestServeLogsShutdown(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		_, cmd, lines := startHTTPEnv(t, nil, oneTool(t))
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitLine(t, lines, `msg="shutting down" reason="signal SIGTERM"`)
		waitLine(t, lines, `msg=stopped`)
	})
	t.Run("stdio", func(t *testing.T) {
		cmd := exec.Command(binary(t), "serve", oneTool(t))
		stdin, err := cmd.StdinPipe() // held open: only the signal stops it
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		waitLine(t, lines, "serving on stdio")
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitLine(t, lines, `msg="shutting down" reason="signal SIGTERM"`)
		waitLine(t, lines, `msg=stopped`)
	})
}
