package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) listCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list PATH...",
		Short: "List the tools, resources and prompts",
		Long: `List prints the tools of the configuration at each PATH with their
arguments and outputs, then its resources, resource templates and prompts.
With --json it prints the exact tools/list payload that an MCP client
receives, with the lists of resources/list, resources/templates/list and
prompts/list as the members resources, resourceTemplates and prompts when
the configuration has some.`,
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
				writeTool(a.stdout, t, t.OutputSchemas())
			}
			writeResources(a.stdout, cfg)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the exact tools/list payload as JSON, then the resources, templates and prompts")
	a.addVarFlag(c)
	return c
}

// writeResources prints the resources, resource templates and prompts of
// cfg, after its tools.
func writeResources(w io.Writer, cfg *engine.Config) {
	about := func(title, description string) string {
		s := title
		if description != "" {
			if s != "" {
				s += ": "
			}
			s += strings.ReplaceAll(description, "\n", " ")
		}
		return s
	}
	if len(cfg.Resources) > 0 {
		fmt.Fprintf(w, "\nresources:\n")
		for _, r := range cfg.Resources {
			writeLine(w, r.URI, []string{r.Name, orNone(r.MIMEType)}, about(r.Title, r.Description))
		}
	}
	if len(cfg.Templates) > 0 {
		fmt.Fprintf(w, "\nresource templates:\n")
		for _, t := range cfg.Templates {
			writeLine(w, t.URITemplate, []string{t.Name, orNone(t.MIMEType)}, about(t.Title, t.Description))
		}
	}
	if len(cfg.Prompts) > 0 {
		fmt.Fprintf(w, "\nprompts:\n")
		for _, p := range cfg.Prompts {
			var args []string
			for _, a := range p.Args {
				if a.Required {
					args = append(args, a.Name)
				} else {
					args = append(args, a.Name+"?")
				}
			}
			if len(args) == 0 {
				args = []string{"no arguments"}
			}
			writeLine(w, p.Name, args, about(p.Title, p.Description))
		}
	}
}

// orNone is s, or "no MIME type" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "no MIME type"
	}
	return s
}

// writeTool prints one tool for people: its arguments and outputs with
// their types as declared in HCL, and the arguments' constraints. The
// outputs are shown as output_schemas (mode) lists them to clients:
// compact without their descriptions, none said to be unlisted.
func writeTool(w io.Writer, t *engine.Tool, mode string) {
	title := ""
	if t.Title() != "" {
		title = " — " + t.Title()
	}
	fmt.Fprintf(w, "%s%s\n  %s\n", t.Name(), title, strings.ReplaceAll(t.Description(), "\n", "\n  "))
	if args := t.Args(); len(args) > 0 {
		fmt.Fprintf(w, "  arguments:\n")
		for _, a := range args {
			writeLine(w, a.Name, argFacts(a), a.Description)
		}
	}
	if outs := t.Outputs(); len(outs) > 0 {
		switch mode {
		case engine.OutputSchemasCompact:
			fmt.Fprintf(w, "  outputs (listed without their descriptions):\n")
		case engine.OutputSchemasNone:
			fmt.Fprintf(w, "  outputs (not listed to clients; each result is still checked against them):\n")
		default:
			fmt.Fprintf(w, "  outputs:\n")
		}
		for _, o := range outs {
			typ := o.Type
			if o.Schema != nil {
				typ = nil // the schema wins
			}
			facts := []string{typeText(typ, o.Schema)}
			if o.Optional {
				facts = append(facts, "optional")
			}
			description := o.Description
			if mode != engine.OutputSchemasFull {
				description = ""
			}
			writeLine(w, o.Name, facts, description)
		}
	}
}

// writeLine prints one argument or output: "name (facts): description".
func writeLine(w io.Writer, name string, facts []string, description string) {
	desc := ""
	if description != "" {
		desc = ": " + strings.ReplaceAll(description, "\n", " ")
	}
	fmt.Fprintf(w, "    %s (%s)%s\n", name, strings.Join(facts, ", "), desc)
}

// argFacts describes an argument: its declared type, whether it is
// required, its default and its constraints, in words.
func argFacts(a schema.Arg) []string {
	facts := []string{typeText(a.Type, a.Schema)}
	switch {
	case a.HasDefault:
		facts = append(facts, "default "+jsonenc.Text(a.Default))
	case a.Optional:
		facts = append(facts, "optional")
	default:
		facts = append(facts, "required")
	}
	if a.Sensitive {
		facts = append(facts, "sensitive")
	}
	if len(a.Enum) > 0 {
		values := make([]string, len(a.Enum))
		for i, v := range a.Enum {
			values[i] = jsonenc.Text(v)
		}
		facts = append(facts, "one of "+strings.Join(values, ", "))
	}
	facts = appendRange(facts, "", "", floatText(a.Minimum), floatText(a.Maximum))
	facts = appendRange(facts, " character", " characters", intText(a.MinLength), intText(a.MaxLength))
	facts = appendRange(facts, " item", " items", intText(a.MinItems), intText(a.MaxItems))
	if a.Pattern != "" {
		facts = append(facts, "matching "+jsonenc.Text(a.Pattern))
	}
	if a.Format != "" {
		facts = append(facts, "format "+a.Format)
	}
	return facts
}

// typeText is a declared type as written in HCL, or for a schema given
// whole (the schema attribute), "JSON Schema" and its type.
func typeText(typ *schema.Type, doc map[string]any) string {
	if typ != nil || doc == nil {
		return typ.String() // any, for nil
	}
	text := "JSON Schema"
	if t, ok := doc["type"].(string); ok {
		text += " " + t
	}
	return text
}

// appendRange appends inclusive bounds in words, lo and hi empty when
// absent: "1 to 5 items", "at least 1 character", "at most 10".
func appendRange(facts []string, one, many, lo, hi string) []string {
	unit := func(n string) string {
		if n == "1" {
			return n + one
		}
		return n + many
	}
	switch {
	case lo != "" && hi != "":
		return append(facts, lo+" to "+unit(hi))
	case lo != "":
		return append(facts, "at least "+unit(lo))
	case hi != "":
		return append(facts, "at most "+unit(hi))
	}
	return facts
}

func floatText(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

func intText(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}
