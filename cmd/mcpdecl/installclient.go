package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tailscale/hujson"
)

// desktopClient is an MCP client whose settings file install-client edits.
type desktopClient struct {
	name string // as the user knows it
	// key is the member of the settings file that maps server names to
	// their entries.
	key string
	// stdioType is the entry's "type" member, where the client wants one.
	stdioType string
	// envRefs says whether the client expands ${env:NAME} in an entry's
	// values, so that a secret can be referenced rather than written.
	envRefs bool
	// path is the settings file of the user whose home and configuration
	// directories (os.UserHomeDir, os.UserConfigDir: they differ by system)
	// are given.
	path func(home, config string) string
}

var desktopClients = map[string]*desktopClient{
	"claude": {
		name: "Claude Desktop",
		key:  "mcpServers",
		// macOS: ~/Library/Application Support/Claude, Windows:
		// %APPDATA%\Claude, Linux (unofficial builds): ~/.config/Claude.
		path: func(_, config string) string {
			return filepath.Join(config, "Claude", "claude_desktop_config.json")
		},
	},
	"cursor": {
		name:    "Cursor",
		key:     "mcpServers",
		envRefs: true,
		path: func(home, _ string) string {
			return filepath.Join(home, ".cursor", "mcp.json")
		},
	},
	"vscode": {
		name:      "VS Code",
		key:       "servers",
		stdioType: "stdio",
		envRefs:   true,
		path: func(_, config string) string {
			return filepath.Join(config, "Code", "User", "mcp.json")
		},
	},
}

// envName is the name of an environment variable that --env accepts.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// clientNames are the names install-client accepts, and their aliases.
var clientNames = map[string]string{
	"claude": "claude", "claude-desktop": "claude",
	"cursor": "cursor",
	"vscode": "vscode", "code": "vscode", "vs-code": "vscode",
}

func (a *app) installClientCmd() *cobra.Command {
	var (
		name, settings, command string
		envNames                []string
		dryRun                  bool
	)
	c := &cobra.Command{
		Use:   "install-client CLIENT PATH...",
		Short: "Add the configuration to a desktop client's MCP settings (claude, cursor, vscode)",
		Long: `Install-client writes an entry that serves the configuration at PATH over
stdio into the MCP settings file of a desktop client on this system:

  claude   Claude Desktop  <config dir>/Claude/claude_desktop_config.json
  cursor   Cursor          ~/.cursor/mcp.json
  vscode   VS Code         <config dir>/Code/User/mcp.json (user settings)

where <config dir> is ~/Library/Application Support on macOS, %APPDATA% on
Windows and ~/.config on Linux. The configuration is loaded first, and the
entry is named after its server block (--name to choose). An existing
settings file is merged, its other servers, settings and comments kept; a
copy of it is kept beside it (FILE.bak, or FILE.bak.1… when that exists). A
file that is not JSON is left untouched and the command fails. An entry of
the same name is replaced. The change is printed; with --dry-run nothing is
written.

No secret is written: the entry runs 'mcpdecl serve' with the absolute paths
of PATH. Give secrets through --env-file FILE (a dotenv file the server
reads when it starts, named in the entry by its path) or, for Cursor and VS
Code, through --env NAME, which the client fills in from its own environment
(${env:NAME}).`,
		Example: `  mcpdecl install-client claude ./weather.hcl --env-file ~/.config/weather.env
  mcpdecl install-client cursor ./github.hcl --env GITHUB_TOKEN --dry-run`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			id, ok := clientNames[strings.ToLower(argv[0])]
			if !ok {
				return usageError{fmt.Errorf("unknown client %q: use claude, cursor or vscode", argv[0])}
			}
			client := desktopClients[id]
			paths := argv[1:]
			if len(envNames) > 0 && !client.envRefs {
				return usageError{fmt.Errorf("%s cannot fill a value from its environment (--env): put the values in a dotenv file and pass --env-file FILE", client.name)}
			}
			for _, n := range envNames {
				if !envName.MatchString(n) {
					return usageError{fmt.Errorf("--env %q is not the name of an environment variable", n)}
				}
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			if name == "" {
				name = cfg.Server.Name
			}
			cfg.Close()
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(paths[0]), ".hcl")
			}
			if command == "" {
				if command, err = os.Executable(); err != nil {
					return fmt.Errorf("cannot tell where this mcpdecl is (%v): pass --command PATH", err)
				}
			}
			serveArgs := []string{"serve"}
			for _, p := range paths {
				abs, err := filepath.Abs(p)
				if err != nil {
					return err
				}
				serveArgs = append(serveArgs, abs)
			}
			for _, f := range a.envFiles {
				// The configuration loaded with them, so they are there.
				abs, err := filepath.Abs(f)
				if err != nil {
					return err
				}
				serveArgs = append(serveArgs, "--env-file", abs)
			}
			entry := clientEntry{Type: client.stdioType, Command: command, Args: serveArgs}
			if len(envNames) > 0 {
				entry.Env = map[string]string{}
				for _, n := range envNames {
					entry.Env[n] = "${env:" + n + "}"
				}
			}
			if settings == "" {
				if settings, err = clientSettingsPath(client); err != nil {
					return err
				}
			}
			return a.installEntry(client, settings, name, entry, dryRun)
		},
	}
	c.Flags().StringVar(&name, "name", "", "the entry's name (default: the server block's name)")
	c.Flags().StringVar(&settings, "settings", "", "the settings file to edit (default: the client's, on this system)")
	c.Flags().StringVar(&command, "command", "", "the mcpdecl executable the client starts (default: this one)")
	c.Flags().StringArrayVar(&a.envFiles, "env-file", nil, "a dotenv file of secrets, read to load the configuration now and by the server when it starts; the entry holds only its path (repeatable)")
	c.Flags().StringArrayVar(&envNames, "env", nil, "an environment variable the client passes on from its own environment, as ${env:NAME} (Cursor, VS Code; repeatable)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the change, write nothing")
	return c
}

// clientEntry is one server in a client's settings file.
type clientEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// clientSettingsPath is the client's settings file for this user.
func clientSettingsPath(client *desktopClient) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the home directory (%v): pass --settings FILE", err)
	}
	config, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the configuration directory (%v): pass --settings FILE", err)
	}
	return client.path(home, config), nil
}

// maxSettings bounds the settings file read.
const maxSettings = 16 << 20

// installEntry merges the entry into the settings file, keeping a copy of
// the file as it was, and prints what changed.
func (a *app) installEntry(client *desktopClient, file, name string, entry clientEntry, dryRun bool) error {
	old, err := readSettings(file)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	merged, replaced, err := mergeClientEntry(old, client.key, name, entry)
	if err != nil {
		return fmt.Errorf("%s: %w; the file was left untouched", file, err)
	}
	shown, _ := json.MarshalIndent(map[string]any{name: entry}, "", "  ")
	verb, done := "add", "added server %q to"
	if replaced {
		verb, done = "replace", "replaced server %q in"
	}
	if dryRun {
		fmt.Fprintf(a.stdout, "would %s server %q in %s (%s's %s):\n%s\n", verb, name, file, client.name, client.key, shown)
		if !exists {
			fmt.Fprintf(a.stdout, "(the file does not exist yet: it would be created)\n")
		}
		return nil
	}
	backup := ""
	if exists {
		if backup, err = keepBackup(file, old); err != nil {
			return err
		}
	}
	if err := writeSettings(file, merged, exists); err != nil {
		return err
	}
	switch {
	case backup != "":
		fmt.Fprintf(a.stdout, "%s %s (the previous file is kept as %s):\n%s\n", fmt.Sprintf(done, name), file, backup, shown)
	default:
		fmt.Fprintf(a.stdout, "created %s with server %q:\n%s\n", file, name, shown)
	}
	fmt.Fprintf(a.stdout, "Restart %s to start it.\n", client.name)
	return nil
}

// readSettings reads a settings file: a regular file, of bounded size.
func readSettings(file string) ([]byte, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; the file was left untouched", file)
	}
	if fi.Size() > maxSettings {
		return nil, fmt.Errorf("%s is larger than %d MiB, too large for a settings file; the file was left untouched", file, maxSettings>>20)
	}
	return os.ReadFile(file)
}

// mergeClientEntry sets entry as the member name of the object key of the
// settings document old (JSON, or JSON with comments and trailing commas
// as VS Code writes it), keeping everything else as it was, comments
// included. An empty old is an empty document. It reports whether an entry
// of that name was replaced.
func mergeClientEntry(old []byte, key, name string, entry clientEntry) ([]byte, bool, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		b, err := json.MarshalIndent(map[string]any{key: map[string]any{name: entry}}, "", "  ")
		return append(b, '\n'), false, err
	}
	// Parse a copy: the document it returns shares its bytes, which
	// Format rewrites in place.
	doc, err := hujson.Parse(bytes.Clone(old))
	if err != nil {
		return nil, false, fmt.Errorf("not valid JSON (%s): fix or move it, then run this again", strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if doc.Value.Kind() != '{' {
		return nil, false, errors.New("not a JSON object: fix or move it, then run this again")
	}
	var ops []map[string]any
	servers := doc.Find("/" + pointerEscape(key))
	switch {
	case servers == nil:
		ops = append(ops, map[string]any{"op": "add", "path": "/" + pointerEscape(key), "value": map[string]any{}})
	case servers.Value.Kind() != '{':
		return nil, false, fmt.Errorf("its %q member is not a JSON object: fix it, then run this again", key)
	}
	replaced := servers != nil && servers.Find("/"+pointerEscape(name)) != nil
	ops = append(ops, map[string]any{"op": "add", "path": "/" + pointerEscape(key) + "/" + pointerEscape(name), "value": entry})
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, false, err
	}
	if err := doc.Patch(patch); err != nil {
		return nil, false, err
	}
	doc.Format()
	b := doc.Pack()
	if !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	return b, replaced, nil
}

// pointerEscape escapes s as a JSON Pointer token (RFC 6901).
func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// keepBackup writes old beside file as FILE.bak, or FILE.bak.N when that
// exists, and returns its name.
func keepBackup(file string, old []byte) (string, error) {
	for i := 0; i < 100; i++ {
		name := file + ".bak"
		if i > 0 {
			name = fmt.Sprintf("%s.bak.%d", file, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("keeping a copy of %s: %w; the file was left untouched", file, err)
		}
		_, err = f.Write(old)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("keeping a copy of %s: %w; the file was left untouched", file, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("%s.bak and %s.bak.1 to .99 exist: remove the old copies; the file was left untouched", file, file)
}

// writeSettings replaces file with b at once (a new file renamed over it),
// keeping its mode; a new file, and its directory, are the user's alone.
func writeSettings(file string, b []byte, exists bool) error {
	mode := fs.FileMode(0o600)
	if exists {
		if fi, err := os.Stat(file); err == nil {
			mode = fi.Mode().Perm()
		}
	} else if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("creating the directory of %s: %w", file, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}
