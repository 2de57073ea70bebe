package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// scaffolds holds the starting configurations that init writes.
//
//go:embed scaffold/*.hcl
var scaffolds embed.FS

// defaultInitFile is the file init writes in a directory.
const defaultInitFile = "mcpdecl.hcl"

// scaffold describes one starting configuration.
type scaffold struct {
	file string // in scaffolds
	what string // for the message after writing
	try  string // a call to try, after the configuration's path
}

func (a *app) initCmd() *cobra.Command {
	var withExec, withSQL, force bool
	c := &cobra.Command{
		Use:   "init [DIR or FILE]",
		Short: "Write a starting configuration that validates and serves as it is",
		Long: `Init writes a commented starting configuration: by default one tool that calls
a public HTTP API needing no account (Open-Meteo's forecast); with --exec,
tools that run programs of this machine (date, uname); with --sql, tools over
an SQLite database that is created, with a few rows, next to the file on
first use.

The argument names a file when it ends with .hcl, else a directory (created if
needed) in which ` + defaultInitFile + ` is written; none means ` + defaultInitFile + ` here. An
existing file is never replaced, unless --force is given.`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			if withExec && withSQL {
				return usageError{errors.New("--exec and --sql cannot be used together: choose one")}
			}
			s := scaffold{"http.hcl", "one tool that calls Open-Meteo's public API", `current_weather '{"latitude": 48.85, "longitude": 2.35}'`}
			switch {
			case withExec:
				s = scaffold{"exec.hcl", "tools that run date and uname", `current_time '{"timezone": "UTC"}'`}
			case withSQL:
				s = scaffold{"sql.hcl", "tools over an SQLite database of notes", `find_notes '{"text": "mcp"}'`}
			}
			target := defaultInitFile
			if len(rest) == 1 {
				target = initTarget(rest[0])
			}
			src, err := scaffolds.ReadFile("scaffold/" + s.file)
			if err != nil {
				return fmt.Errorf("read the starting configuration: %w", err)
			}
			// The commands of the header name the file written.
			src = []byte(strings.ReplaceAll(string(src), " FILE", " "+target))
			if err := writeNew(target, src, force); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Wrote %[1]s: %[2]s. Try:\n\n  mcpdecl validate %[1]s\n  mcpdecl call %[1]s %[3]s\n  mcpdecl serve %[1]s\n", target, s.what, s.try)
			return nil
		},
	}
	c.Flags().BoolVar(&withExec, "exec", false, "write tools that run programs (date, uname) instead of calling an HTTP API")
	c.Flags().BoolVar(&withSQL, "sql", false, "write tools over an SQLite database with a few rows instead of calling an HTTP API")
	c.Flags().BoolVar(&force, "force", false, "replace the file if it exists")
	return c
}

// initTarget is the file init writes for its argument: the argument when it
// names an .hcl file, else the default file in the directory it names.
func initTarget(arg string) string {
	if info, err := os.Stat(arg); err == nil && info.IsDir() {
		return filepath.Join(arg, defaultInitFile)
	}
	if strings.HasSuffix(strings.ToLower(arg), ".hcl") {
		return arg
	}
	return filepath.Join(arg, defaultInitFile)
}

// writeNew writes data to a new file name, creating its directory; an
// existing file is an error unless force is set.
func writeNew(name string, data []byte, force bool) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create the directory of %s: %w", name, err)
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists, and init never replaces a file: give another path, or add --force to replace it", name)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
