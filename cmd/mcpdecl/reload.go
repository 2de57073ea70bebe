package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// settle is how long the files must stay unchanged before a reload, so
// that an editor's save, often several writes and a rename, reloads once.
const settle = 200 * time.Millisecond

// reloadLoop loads the configuration again on each request and swaps it in
// when it is valid; a broken one is logged with its diagnostics.
func (a *app) reloadLoop(ctx context.Context, paths []string, live *server.Live, reloads <-chan string, logger *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case why := <-reloads:
			cfg, _, diags, secrets, err := a.loadDiagnostics(paths)
			if err != nil {
				logger.Error("reload failed; the previous configuration keeps serving", "reason", why, "error", err)
				continue
			}
			logDiagnostics(logger, diags, secrets)
			if cfg == nil {
				n := len(diags.Errs())
				logger.Error(fmt.Sprintf("reload failed: %d %s; the previous configuration keeps serving", n, plural(n, "error", "errors")), "reason", why)
				continue
			}
			var checked bytes.Buffer
			b := *a
			b.stderr = &checked
			if err := b.check(ctx, cfg); err != nil {
				_ = cfg.Close()
				logger.Error("the new configuration cannot reach its databases; the previous one keeps serving", "reason", why, "error", strings.TrimPrefix(strings.TrimSpace(checked.String()), "Error: "))
				continue
			}
			live.Swap(cfg)
			logger.Info("configuration reloaded", "reason", why, "tools", len(cfg.Tools))
			if len(cfg.Tools) == 0 {
				logger.Warn(noTools)
			}
		}
	}
}

// logDiagnostics logs each diagnostic of a reload as one record, at error
// or warn, with its place and text as attributes, secrets redacted: text
// logs show them one a line, JSON logs as fields.
func logDiagnostics(logger *slog.Logger, diags hcl.Diagnostics, secrets *engine.Redactor) {
	for _, d := range diags {
		level := slog.LevelError
		if d.Severity == hcl.DiagWarning {
			level = slog.LevelWarn
		}
		attrs := make([]slog.Attr, 0, 5)
		if d.Subject != nil {
			attrs = append(attrs,
				slog.String("file", d.Subject.Filename),
				slog.Int("line", d.Subject.Start.Line),
				slog.Int("col", d.Subject.Start.Column))
		}
		attrs = append(attrs, slog.String("summary", secrets.Redact(d.Summary)))
		if d.Detail != "" {
			attrs = append(attrs, slog.String("detail", secrets.Redact(d.Detail)))
		}
		logger.LogAttrs(context.Background(), level, "configuration "+severityWord(d.Severity), attrs...)
	}
}

// severityWord names a diagnostic's severity in a log message.
func severityWord(s hcl.DiagnosticSeverity) string {
	if s == hcl.DiagWarning {
		return "warning"
	}
	return "error"
}

// watchFiles watches the configuration's files and directories, and asks for
// a reload once changes to .hcl files settle.
func watchFiles(paths []string, reloads chan<- string, logger *slog.Logger) (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	// Watch directories, not files: editors replace a file by renaming a new
	// one over it, which ends a watch on the file itself.
	var dirs, whole, files []string // watched, given as directories, given as files
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			w.Close()
			return nil, err
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			dirs = append(dirs, abs)
			whole = append(whole, abs)
		} else {
			files = append(files, abs)
			dirs = append(dirs, filepath.Dir(abs))
		}
	}
	slices.Sort(dirs)
	for _, d := range slices.Compact(dirs) {
		if err := w.Add(d); err != nil {
			w.Close()
			return nil, err
		}
	}
	relevant := func(name string) bool {
		if slices.Contains(files, name) {
			return true
		}
		return filepath.Ext(name) == ".hcl" && slices.Contains(whole, filepath.Dir(name))
	}
	go func() {
		var timer *time.Timer
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if !relevant(ev.Name) || ev.Op == fsnotify.Chmod {
					continue
				}
				if timer == nil {
					timer = time.AfterFunc(settle, func() { trigger(reloads, "files changed") })
				} else {
					timer.Reset(settle)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				logger.Warn("watching the configuration", "error", err)
			}
		}
	}()
	return w, nil
}
