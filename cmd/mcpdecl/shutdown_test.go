//go:build unix

package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
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

// TestServeStopsCallsAfterGrace: SIGTERM lets a call in flight run for
// the grace period (server.ShutdownTimeout), then cancels it, so that the
// server stops with "stopped" and its program killed, instead of waiting
// for the call's own timeout (an hour here) with the program running; over
// HTTP, and over stdio while the client keeps standard input open.
func TestServeStopsCallsAfterGrace(t *testing.T) {
	slowTool := func(t *testing.T) (path, pidFile string) {
		dir := t.TempDir()
		pidFile = filepath.Join(dir, "pid")
		path = filepath.Join(dir, "slow.hcl")
		src := `tool "slow" {
  description = "Runs for an hour."
  timeout     = "1h"
  exec {
    command = ["sh", "-c", "echo $$ > ` + pidFile + `; exec sleep 3600"]
    timeout = "1h"
  }
}
`
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return path, pidFile
	}
	// stopWhileCalling waits for the program to start, sends SIGTERM, and
	// checks that serve stops, and the program with it.
	stopWhileCalling := func(t *testing.T, cmd *exec.Cmd, lines <-chan string, pidFile string) {
		var pid int
		for deadline := time.Now().Add(enginetest.Patience); pid == 0; time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if time.Now().After(deadline) {
				t.Fatal("the tool's program did not start")
			}
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitLine(t, lines, `msg="shutting down" reason="signal SIGTERM"`)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("serve exited with %v after SIGTERM, want 0", err)
			}
		case <-time.After(server.ShutdownTimeout + enginetest.Patience):
			t.Fatalf("serve still runs %v after SIGTERM: it waits for the call's own timeout", server.ShutdownTimeout+enginetest.Patience)
		}
		waitLine(t, lines, "calls still running after the grace period are cancelled")
		waitLine(t, lines, `msg=stopped`)
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("the tool's program (pid %d) still runs after serve stopped", pid)
		}
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
	t.Run("http", func(t *testing.T) {
		path, pidFile := slowTool(t)
		endpoint, cmd, lines := startHTTPEnv(t, nil, path)
		go func() {
			req, _ := http.NewRequest("POST", endpoint, strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		}()
		stopWhileCalling(t, cmd, lines, pidFile)
	})
	t.Run("stdio", func(t *testing.T) {
		path, pidFile := slowTool(t)
		cmd := exec.Command(binary(t), "serve", path)
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
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + call + "\n"
		if _, err := io.WriteString(stdin, init); err != nil {
			t.Fatal(err)
		}
		stopWhileCalling(t, cmd, lines, pidFile)
	})
}

// TestServeStdioStopLogsNoError: a normal stop over stdio, by SIGTERM or
// by the client closing standard input after a session, exits 0 with
// "stopped" and logs nothing at ERROR.
func TestServeStdioStopLogsNoError(t *testing.T) {
	for _, tt := range []struct {
		name string
		stop func(cmd *exec.Cmd, stdin io.Closer) error
	}{
		{"SIGTERM", func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(syscall.SIGTERM) }},
		{"stdin closed", func(_ *exec.Cmd, stdin io.Closer) error { return stdin.Close() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), "serve", oneTool(t))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// An answered initialize: the session is under way, and the
			// signal handler in place.
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
			if _, err := io.WriteString(stdin, init); err != nil {
				t.Fatal(err)
			}
			answered := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				answered <- sc.Scan()
				_, _ = io.Copy(io.Discard, stdout)
			}()
			select {
			case ok := <-answered:
				if !ok {
					t.Fatalf("serve did not answer initialize; stderr:\n%s", stderr.String())
				}
			case <-time.After(enginetest.Patience):
				t.Fatal("serve did not answer initialize")
			}
			if err := tt.stop(cmd, stdin); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("serve exited with %v, want 0; stderr:\n%s", err, stderr.String())
				}
			case <-time.After(enginetest.Patience):
				t.Fatal("serve did not stop")
			}
			logs := stderr.String()
			if !strings.Contains(logs, "msg=stopped") {
				t.Errorf("stderr has no \"stopped\" line:\n%s", logs)
			}
			if strings.Contains(logs, "level=ERROR") {
				t.Errorf("a normal stop logged an error:\n%s", logs)
			}
		})
	}
}
