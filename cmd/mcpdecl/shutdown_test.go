//go:build unix

package main

import (
	"bufio"
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

// waitLine waits for a line of lines holding want, as long as
// enginetest.Patience.
func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(enginetest.Patience)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("serve stopped logging before a line holding %q", want)
			}
			if strings.Contains(line, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no log line holding %q within %s", want, enginetest.Patience)
		}
	}
}

// stdioServe is `mcpdecl serve` run over stdio by a test. Its standard
// input is held open: only a signal, or the test closing it, stops it.
type stdioServe struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	// lines are the lines it logs, one at a time; closed once it and its
	// programs have exited.
	lines <-chan string
}

// serveStdio starts `mcpdecl serve path` over stdio, killed when the test
// ends.
func serveStdio(t *testing.T, path string) *stdioServe {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A pipe of the test's own, which Wait does not close: the lines
	// logged last are read too.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill() })
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return &stdioServe{cmd: cmd, stdin: stdin, stdout: stdout, lines: lines}
}

// logs are the lines it logged that no waitLine read, up to its exit.
func (s *stdioServe) logs() string {
	var b strings.Builder
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				return b.String()
			}
			b.WriteString(line + "\n")
		case <-time.After(enginetest.Patience):
			return b.String() + "(serve logs on)\n"
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
		s := serveStdio(t, oneTool(t))
		waitLine(t, s.lines, "serving on stdio")
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitLine(t, s.lines, `msg="shutting down" reason="signal SIGTERM"`)
		waitLine(t, s.lines, `msg=stopped`)
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
		s := serveStdio(t, path)
		init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + call + "\n"
		if _, err := io.WriteString(s.stdin, init); err != nil {
			t.Fatal(err)
		}
		stopWhileCalling(t, s.cmd, s.lines, pidFile)
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
			s := serveStdio(t, oneTool(t))
			// An answered initialize: the session is under way, and the
			// signal handler in place.
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
			if _, err := io.WriteString(s.stdin, init); err != nil {
				t.Fatal(err)
			}
			answered := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(s.stdout)
				answered <- sc.Scan()
				_, _ = io.Copy(io.Discard, s.stdout)
			}()
			select {
			case ok := <-answered:
				if !ok {
					t.Fatalf("serve did not answer initialize; stderr:\n%s", s.logs())
				}
			case <-time.After(enginetest.Patience):
				t.Fatal("serve did not answer initialize")
			}
			if err := tt.stop(s.cmd, s.stdin); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- s.cmd.Wait() }()
			var logs string
			select {
			case err := <-exited:
				logs = s.logs()
				if err != nil {
					t.Errorf("serve exited with %v, want 0; stderr:\n%s", err, logs)
				}
			case <-time.After(enginetest.Patience):
				t.Fatal("serve did not stop")
			}
			if !strings.Contains(logs, "msg=stopped") {
				t.Errorf("stderr has no \"stopped\" line:\n%s", logs)
			}
			if strings.Contains(logs, "level=ERROR") {
				t.Errorf("a normal stop logged an error:\n%s", logs)
			}
		})
	}
}
