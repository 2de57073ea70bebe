package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) listCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list PATH...",
		Short: "List the tools with their arguments and outputs",
		Long: `List prints the tools of the configuration at each PATH with their
arguments and outputs. With --json it prints the exact tools/list payload that
an MCP client receives.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			if asJSON {
				b, err := server.ListJSON(cfg)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(a.stdout, "%s\n", b)
				return err
			}
			for i, t := range cfg.Tools {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				writeTool(a.stdout, t)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the exact tools/list payload as JSON")
	a.addVarFlag(c)
	return c
}

// writeTool prints one tool for people.
func writeTool(w interface{ Write([]byte) (int, error) }, t *engine.Tool) {
	title := ""
	if t.Title() != "" {
		title = " — " + t.Title()
	}
	fmt.Fprintf(w, "%s%s\n  %s\n", t.Name(), title, strings.ReplaceAll(t.Description(), "\n", "\n  "))
	writeProps(w, "arguments", t.InputSchema())
	if out := t.OutputSchema(); out != nil {
		writeProps(w, "outputs", out)
	}
}

// writeProps prints the properties of an object schema, one a line.
func writeProps(w interface{ Write([]byte) (int, error) }, heading string, s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		return
	}
	required := map[string]bool{}
	if req, ok := s["required"].([]string); ok {
		for _, r := range req {
			required[r] = true
		}
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	fmt.Fprintf(w, "  %s:\n", heading)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		typ, _ := p["type"].(string)
		if typ == "" {
			typ = "any"
		}
		flag := ""
		if !required[name] {
			flag = ", optional"
		}
		if d, ok := p["default"]; ok {
			flag = fmt.Sprintf(", default %v", d)
		}
		desc := ""
		if d, ok := p["description"].(string); ok && d != "" {
			desc = ": " + d
		}
		fmt.Fprintf(w, "    %s (%s%s)%s\n", name, typ, flag, desc)
	}
}
