package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

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
			var diags bytes.Buffer
			b := *a
			b.stderr = &diags
			cfg, err := b.load(paths)
			if err != nil {
				logger.Error("the configuration has errors; the previous one keeps serving", "reason", why, "diagnostics", strings.TrimSpace(diags.String()))
				continue
			}
			if err := b.check(ctx, cfg); err != nil {
				_ = cfg.Close()
				logger.Error("the new configuration cannot reach its databases; the previous one keeps serving", "reason", why, "error", strings.TrimSpace(diags.String()))
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
