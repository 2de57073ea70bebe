package engine

import (
	"errors"
	"io"
	"slices"
	"strings"
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
	Redactor *Redactor
	closers  []io.Closer
}

// NewConfig assembles a configuration; tools are sorted by name.
func NewConfig(info ServerInfo, settings Settings, tools []*Tool, redactor *Redactor, closers []io.Closer) *Config {
	tools = slices.Clone(tools)
	slices.SortFunc(tools, func(a, b *Tool) int { return strings.Compare(a.Name(), b.Name()) })
	return &Config{Server: info, Settings: settings, Tools: tools, Redactor: redactor, closers: closers}
}

// Tool returns the tool named name.
func (c *Config) Tool(name string) (*Tool, bool) {
	i, ok := slices.BinarySearchFunc(c.Tools, name, func(t *Tool, name string) int { return strings.Compare(t.Name(), name) })
	if !ok {
		return nil, false
	}
	return c.Tools[i], true
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
