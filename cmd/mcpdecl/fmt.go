package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// maxFmtBytes caps the size of a file fmt reads: a configuration is
// written by people, and hclwrite holds several copies of it.
const maxFmtBytes = 64 << 20

func (a *app) fmtCmd() *cobra.Command {
	var check, showDiff bool
	c := &cobra.Command{
		Use:   "fmt PATH...",
		Short: "Rewrite configuration files in the canonical format",
		Long: `Fmt rewrites each PATH (an .hcl file, or every *.hcl file of a directory) in
the canonical format: indentation by two spaces, "=" aligned within a block,
as terraform fmt does. Formatting is idempotent, and only the layout changes.
It prints the name of each file it rewrites; files keep their mode and are
replaced at once (a new file renamed over the old one).

With --check nothing is written: the files that would change are listed and
fmt exits with 1 if there are any. With --diff nothing is written either: the
changes are printed as a unified diff. A file with syntax errors is reported
like validate does, left as it is, and fmt exits with 1.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			names, err := hclFiles(paths)
			if err != nil {
				return err
			}
			failed := false
			for _, name := range names {
				changed, err := a.fmtFile(name, !check && !showDiff, showDiff)
				if err != nil {
					var ec exitCoder
					if !errors.As(err, &ec) {
						fmt.Fprintf(a.stderr, "Error: %s\n", err)
					}
					failed = true
					continue
				}
				if changed && !showDiff {
					fmt.Fprintln(a.stdout, name)
				}
				if changed && check {
					failed = true
				}
			}
			if failed {
				return exitCoder{exitError}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&check, "check", false, "write nothing; list the files that would change and exit with 1 if any")
	c.Flags().BoolVar(&showDiff, "diff", false, "write nothing; print the changes as a unified diff")
	return c
}

// hclFiles lists the files that paths name, as the loader reads them, and
// the test files (see load.SourceFiles); the first path that names none is
// the error.
func hclFiles(paths []string) ([]string, error) {
	names, errs := load.SourceFiles(paths)
	if len(errs) > 0 {
		var pe *fs.PathError
		if errors.As(errs[0], &pe) {
			return nil, fmt.Errorf("cannot read %s: %w", pe.Path, pe.Err)
		}
		return nil, errs[0]
	}
	return names, nil
}

// formatHCL returns src in the canonical format, or the syntax errors that
// keep it from being formatted.
//
// Parsing (for the errors) and formatting (which lexes on its own) each
// take about half the time, so they run at once; a large file is read
// with the garbage collector running less often, as the loader does.
func formatHCL(src []byte, name string) ([]byte, *hcl.File, hcl.Diagnostics) {
	if len(src) >= largeConfig {
		defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	}
	formatted := make(chan []byte, 1)
	go func() { formatted <- hclwrite.Format(src) }()
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	out := <-formatted
	if diags.HasErrors() {
		return nil, f, diags
	}
	return out, f, nil
}

// fmtFile formats the file name. It writes the result when write is set,
// prints a unified diff when showDiff is, and reports whether the file's
// text changes. Syntax errors are printed as diagnostics and returned as
// an exitCoder.
func (a *app) fmtFile(name string, write, showDiff bool) (bool, error) {
	info, err := os.Stat(name)
	if err != nil {
		return false, fmt.Errorf("cannot read %s: %w", name, err)
	}
	if info.Size() > maxFmtBytes {
		return false, fmt.Errorf("%s is %d bytes, more than fmt reads (%d)", name, info.Size(), maxFmtBytes)
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return false, fmt.Errorf("cannot read %s: %w", name, err)
	}
	out, f, diags := formatHCL(src, name)
	if diags.HasErrors() {
		writeDiagnostics(a.stderr, load.Files{name: f}, diags, &text.Redactor{})
		return false, exitCoder{exitError}
	}
	if bytes.Equal(src, out) {
		return false, nil
	}
	if showDiff {
		a.stdout.Write(diff.Diff("old/"+name, src, "new/"+name, out))
	}
	if write {
		if err := writeAtomic(name, out); err != nil {
			return false, err
		}
	}
	return true, nil
}

// writeAtomic replaces the file name with data: written to a new file in
// the same directory with the old one's mode, then renamed over it, so that
// a reader sees the old text or the new, never a part. A symbolic link is
// followed: the file it points to is replaced, the link kept.
func writeAtomic(name string, data []byte) (err error) {
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", name, err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("stat %s: %w", name, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = tmp.Chmod(info.Mode().Perm()); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	return nil
}
