package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// diagFormatVersion is the version of the shape validate --format json
// prints. It changes only when a field changes meaning or goes away; new
// fields may appear without a change.
const diagFormatVersion = "1"

// diagReport is what validate --format json prints: one JSON document.
type diagReport struct {
	FormatVersion string `json:"format_version"`
	Valid         bool   `json:"valid"`
	ErrorCount    int    `json:"error_count"`
	WarningCount  int    `json:"warning_count"`
	ToolCount     int    `json:"tool_count"`
	// The counts of resources, resource templates and prompts; like
	// tool_count, 0 when the configuration did not load.
	ResourceCount         int        `json:"resource_count"`
	ResourceTemplateCount int        `json:"resource_template_count"`
	PromptCount           int        `json:"prompt_count"`
	Diagnostics           []diagJSON `json:"diagnostics"`
}

// diagJSON is one diagnostic. Range is absent when the problem has no place
// in a file (a path that cannot be read, a database that does not answer).
type diagJSON struct {
	Severity string     `json:"severity"` // "error" or "warning"
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail"`
	Range    *rangeJSON `json:"range,omitempty"`
}

// rangeJSON is a range of a source file; End is just past its last
// character.
type rangeJSON struct {
	Filename string  `json:"filename"`
	Start    posJSON `json:"start"`
	End      posJSON `json:"end"`
}

// posJSON is a position in a source file: line and column count from 1
// (the column in characters), byte is the offset from 0.
type posJSON struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// diagCollector gathers the diagnostics of a load instead of printing them,
// with their secrets already redacted.
type diagCollector struct {
	diags []diagJSON
}

// add records diags, redacting what secrets knows of from their text.
// Source lines are never recorded: the ranges say where to look.
func (c *diagCollector) add(diags hcl.Diagnostics, secrets *text.Redactor) {
	for _, d := range diags {
		j := diagJSON{
			Severity: "error",
			Summary:  secrets.Redact(d.Summary),
			Detail:   secrets.Redact(d.Detail),
		}
		if d.Severity == hcl.DiagWarning {
			j.Severity = "warning"
		}
		if r := d.Subject; r != nil {
			j.Range = &rangeJSON{
				Filename: r.Filename,
				Start:    posJSON{r.Start.Line, r.Start.Column, r.Start.Byte},
				End:      posJSON{r.End.Line, r.End.Column, r.End.Byte},
			}
		}
		c.diags = append(c.diags, j)
	}
}

// report prints diags on stderr, or gathers them when validate --format
// json runs.
func (a *app) report(files load.Files, diags hcl.Diagnostics, secrets *text.Redactor) {
	if a.collect != nil {
		a.collect.add(diags, secrets)
		return
	}
	if len(diags) > 0 {
		writeDiagnostics(a.stderr, files, diags, secrets)
	}
}

// write prints the report of the diagnostics gathered, for cfg (nil when
// it did not load).
func (c *diagCollector) write(w io.Writer, cfg *engine.Config) error {
	r := diagReport{FormatVersion: diagFormatVersion, Diagnostics: c.diags}
	if cfg != nil {
		r.ToolCount, r.ResourceCount = len(cfg.Tools), len(cfg.Resources)
		r.ResourceTemplateCount, r.PromptCount = len(cfg.Templates), len(cfg.Prompts)
	}
	if r.Diagnostics == nil {
		r.Diagnostics = []diagJSON{}
	}
	for _, d := range c.diags {
		if d.Severity == "error" {
			r.ErrorCount++
		} else {
			r.WarningCount++
		}
	}
	r.Valid = r.ErrorCount == 0
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the diagnostics: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// validateJSON is validate --format json: the load's diagnostics, and with
// connect those of the connection checks, as one JSON document on stdout.
// The exit code is the same as in text.
func (a *app) validateJSON(ctx context.Context, paths []string, connect bool) error {
	c := &diagCollector{}
	a.collect = c
	defer func() { a.collect = nil }()
	cfg, err := a.load(paths)
	if err != nil {
		if _, ok := err.(exitCoder); !ok {
			return err // a usage error: no document
		}
		if werr := c.write(a.stdout, nil); werr != nil {
			return werr
		}
		return err
	}
	defer cfg.Close()
	if connect {
		ctx, cancel := context.WithTimeout(ctx, checkTimeout)
		defer cancel()
		if err := cfg.Check(ctx); err != nil {
			c.diags = append(c.diags, diagJSON{
				Severity: "error",
				Summary:  "Connection failed",
				Detail:   strings.TrimSuffix(cfg.Redactor.Redact(err.Error()), ".") + ".",
			})
		}
	}
	if len(cfg.Tools) == 0 {
		c.diags = append(c.diags, diagJSON{Severity: "warning", Summary: "No tools", Detail: strings.ToUpper(noTools[:1]) + noTools[1:] + "."})
	}
	if err := c.write(a.stdout, cfg); err != nil {
		return err
	}
	for _, d := range c.diags {
		if d.Severity == "error" {
			return exitCoder{exitError}
		}
	}
	return nil
}
