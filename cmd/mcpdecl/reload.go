package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// settle is how long the files must stay unchanged before a reload, so
// that an editor's save, often several writes and a rename, reloads once.
const settle = 200 * time.Millisecond

// reloadLoop loads the configuration again on each request and swaps it in
// when it is valid; a broken one is logged with its diagnostics. (With
// --watch, a.read has the watcher follow the files each load reads.)
func (a *app) reloadLoop(ctx context.Context, paths []string, live *server.Live, reloads <-chan string, logger *slog.Logger, counted func(ok bool)) {
	for {
		select {
		case <-ctx.Done():
			return
		case why := <-reloads:
			cfg, _, diags, secrets, err := a.loadDiagnostics(paths)
			if err != nil {
				logger.Error("reload failed; the previous configuration keeps serving", "reason", why, "error", err)
				counted(false)
				continue
			}
			logDiagnostics(logger, diags, secrets)
			if cfg == nil {
				n := len(diags.Errs())
				logger.Error(fmt.Sprintf("reload failed: %d %s; the previous configuration keeps serving", n, plural(n, "error", "errors")), "reason", why)
				counted(false)
				continue
			}
			var checked bytes.Buffer
			b := *a
			b.stderr = &checked
			if err := b.check(ctx, cfg); err != nil {
				_ = cfg.Close()
				logger.Error("the new configuration cannot reach its databases; the previous one keeps serving", "reason", why, "error", strings.TrimPrefix(strings.TrimSpace(checked.String()), "Error: "))
				counted(false)
				continue
			}
			live.Swap(cfg)
			counted(true)
			logger.Info("configuration reloaded", append([]any{"reason", why}, served(cfg)...)...)
			if len(cfg.Tools) == 0 {
				logger.Warn(noTools)
			}
		}
	}
}

// logDiagnostics logs each diagnostic of a reload as one record, at error
// or warn, with its place and text as attributes, secrets redacted: text
// logs show them one a line, JSON logs as fields.
func logDiagnostics(logger *slog.Logger, diags hcl.Diagnostics, secrets *text.Redactor) {
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

// configWatcher asks for a reload once changes settle to the files a
// configuration is made of: the .hcl files of its PATHs, and every file a
// load read or tried to read (file(), ca_file, --env-file; see
// [engine.Config.Files]), which can change with each reload.
type configWatcher struct {
	w *fsnotify.Watcher

	mu    sync.Mutex
	dirs  map[string]bool        // directories watched
	whole map[string]bool        // directories given as PATHs: each .hcl file in them
	files map[string]os.FileInfo // files of interest, wherever they are: what each was when last looked at (nil: missing)
}

// watchFiles watches the configuration at paths, and asks for a reload
// once changes to its files settle. [configWatcher.watch] adds the files a
// load read.
func watchFiles(paths []string, reloads chan<- string, logger *slog.Logger) (*configWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	cw := &configWatcher{w: w, dirs: map[string]bool{}, whole: map[string]bool{}, files: map[string]os.FileInfo{}}
	var files []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			w.Close()
			return nil, err
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			cw.whole[abs] = true
			if err := cw.addDir(abs); err != nil {
				w.Close()
				return nil, err
			}
		} else {
			files = append(files, abs)
		}
	}
	if err := cw.watch(files); err != nil {
		w.Close()
		return nil, err
	}
	go func() {
		var timer *time.Timer
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Op == fsnotify.Chmod || !cw.relevant(ev.Name) {
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
	return cw, nil
}

// watch adds files (absolute paths) to those whose change reloads. It
// watches their directories, not the files: editors replace a file by
// renaming a new one over it, which ends a watch on the file itself.
func (cw *configWatcher) watch(files []string) error {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for _, f := range files {
		if _, ok := cw.files[f]; !ok {
			cw.files[f] = statFile(f)
		}
		if err := cw.addDirLocked(filepath.Dir(f)); err != nil {
			return err
		}
	}
	return nil
}

func (cw *configWatcher) addDir(dir string) error {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.addDirLocked(dir)
}

func (cw *configWatcher) addDirLocked(dir string) error {
	if cw.dirs[dir] {
		return nil
	}
	if err := cw.w.Add(dir); err != nil {
		return fmt.Errorf("cannot watch %s: %w", dir, err)
	}
	cw.dirs[dir] = true
	return nil
}

// relevant reports whether a change to name concerns the configuration:
// name is a file of it, or a watched file of name's directory is no longer
// what it was. No event names a file that is a symbolic link whose target
// was swapped, as when Kubernetes updates a mounted Secret or ConfigMap
// (it replaces the directory's ..data link): the change shows in what the
// file now leads to.
func (cw *configWatcher) relevant(name string) bool {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if filepath.Ext(name) == ".hcl" && !load.IsTestFile(name) && cw.whole[filepath.Dir(name)] {
		return true
	}
	_, changed := cw.files[name]
	dir := filepath.Dir(name)
	for f, was := range cw.files {
		if filepath.Dir(f) != dir {
			continue
		}
		if now := statFile(f); !sameFile(was, now) {
			cw.files[f] = now
			changed = true
		}
	}
	return changed
}

// statFile is what name leads to, links followed, or nil when it cannot
// be found.
func statFile(name string) os.FileInfo {
	info, err := os.Stat(name)
	if err != nil {
		return nil
	}
	return info
}

// sameFile reports whether a and b, each from statFile, are one file
// unchanged.
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// Close stops watching.
func (cw *configWatcher) Close() error { return cw.w.Close() }

// absPaths makes paths absolute, as the watcher names files; a path that
// cannot be made so is left as it is.
func absPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out[i] = p
	}
	return out
}
