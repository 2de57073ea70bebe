package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// ServerInfo is what the server says of itself to clients.
type ServerInfo struct {
	Name         string
	Version      string
	Title        string
	Instructions string
}

// Config is a loaded configuration: the tools to serve and what they share.
type Config struct {
	Server   ServerInfo
	Settings Settings
	// Tools are sorted by name.
	Tools []*Tool
	// Redactor knows every secret of the configuration.
	Redactor *text.Redactor
	// Layers are the configuration's layers of the per-call path of each of
	// its tools (ToolSpec.Outer, which every tool is made with): its audit
	// log (package audit) and what its calls' spans record (package
	// tracing).
	Layers []CallLayer
	// Resources are the resource blocks, Templates the resource_template
	// blocks and Prompts the prompt blocks, each sorted by name.
	Resources []*Resource
	Templates []*ResourceTemplate
	Prompts   []*Prompt
	// Toolsets are the toolset blocks, sorted by name.
	Toolsets []*Toolset

	blocks   []any
	closers  []io.Closer
	checkers []Checker
	files    []string
}

// Prompt returns the prompt called name.
func (c *Config) Prompt(name string) (*Prompt, bool) {
	for _, p := range c.Prompts {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// ResourceAt returns what serves the resource at uri: a resource of that
// URI, else the first template (by name) that matches it; both nil when
// there is none.
func (c *Config) ResourceAt(uri string) (*Resource, *ResourceTemplate) {
	for _, r := range c.Resources {
		if r.URI == uri {
			return r, nil
		}
	}
	for _, t := range c.Templates {
		if t.Matches(uri) {
			return nil, t
		}
	}
	return nil, nil
}

// Toolset returns the toolset called name.
func (c *Config) Toolset(name string) (*Toolset, bool) {
	for _, t := range c.Toolsets {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Template returns the resource template called name.
func (c *Config) Template(name string) (*ResourceTemplate, bool) {
	for _, t := range c.Templates {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Files returns the absolute paths of every file the load read: the
// configuration files and every file read by file() or named by an
// attribute such as ca_file, in the order first read, so that a watcher
// can reload when any of them changes.
func (c *Config) Files() []string { return slices.Clone(c.files) }

// SetFiles records the files the load read; see Files.
func (c *Config) SetFiles(paths []string) { c.files = slices.Clone(paths) }

// NewConfig assembles a configuration; tools are sorted by name. The
// blocks are what the adapters decoded from top-level blocks: those that
// are io.Closer are closed by Close, as are the tools' actions that are,
// and those that are Checker are asked by Check.
func NewConfig(info ServerInfo, settings Settings, tools []*Tool, redactor *text.Redactor, blocks []any) *Config {
	tools = slices.Clone(tools)
	slices.SortFunc(tools, func(a, b *Tool) int { return strings.Compare(a.Name(), b.Name()) })
	c := &Config{Server: info, Settings: settings, Tools: tools, Redactor: redactor, blocks: blocks}
	for _, t := range tools {
		if cl, ok := t.spec.Action.(io.Closer); ok {
			c.closers = append(c.closers, cl)
		}
	}
	for _, r := range blocks {
		if cl, ok := r.(io.Closer); ok {
			c.closers = append(c.closers, cl)
		}
		if ch, ok := r.(Checker); ok {
			c.checkers = append(c.checkers, ch)
		}
	}
	return c
}

// Tool returns the tool named name.
func (c *Config) Tool(name string) (*Tool, bool) {
	i, ok := slices.BinarySearchFunc(c.Tools, name, func(t *Tool, name string) int { return strings.Compare(t.Name(), name) })
	if !ok {
		return nil, false
	}
	return c.Tools[i], true
}

// Blocks are what the adapters (upstreams such as an http_api) and the
// server's own blocks (auth, rate_limit) decoded from top-level blocks, for
// the parts of the server that look for one kind by its type.
func (c *Config) Blocks() []any { return c.blocks }

// Check asks every decoded block that can (see Checker) whether what it
// connects to is reachable, and returns every failure.
func (c *Config) Check(ctx context.Context) error {
	var errs []error
	for _, r := range c.checkers {
		errs = append(errs, r.Check(ctx))
	}
	return errors.Join(errs...)
}

// Close releases what the configuration holds open, such as connection
// pools.
func (c *Config) Close() error {
	var errs []error
	for _, cl := range c.closers {
		errs = append(errs, cl.Close())
	}
	return errors.Join(errs...)
}

// UnknownTool is the error for a tool name the configuration does not
// declare: it names the closest tool when there is one, else every tool.
func (c *Config) UnknownTool(name string) error {
	if len(c.Tools) == 0 {
		return fmt.Errorf("no tool named %q: the configuration declares no tools", name)
	}
	names := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		names[i] = t.Name()
	}
	if best := Closest(name, names); best != "" {
		return fmt.Errorf("no tool named %q; did you mean %q? (mcpdecl list shows every tool)", name, best)
	}
	return fmt.Errorf("no tool named %q; the tools are: %s", name, strings.Join(names, ", "))
}

// Closest returns the candidate closest to name, ignoring case, when it
// is close enough to be what was meant; else "".
func Closest(name string, candidates []string) string {
	best, bestDist := "", 0
	for _, c := range candidates {
		d := levenshtein.Distance(strings.ToLower(name), strings.ToLower(c), nil)
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" && bestDist <= max(2, len(name)/3) {
		return best
	}
	return ""
}
