package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/testrun"
)

func (a *app) testCmd() *cobra.Command {
	var (
		update   bool
		junit    string
		parallel int
		run      string
	)
	c := &cobra.Command{
		Use:   "test PATH...",
		Short: "Run the tests of *.test.hcl files, with mocked upstreams",
		Long: `Test runs the tests declared in test files (*.test.hcl): each PATH is a test
file, or a directory whose test files are run. A test calls one tool of the
configuration the file tests (its config attribute, else the .hcl files of its
own directory) and checks the result with assert blocks; mock blocks stand in
for an http_api (a local HTTP server answers the requests) or a database (a
fresh SQLite database), so that tests run anywhere.

One line is printed per test, then for each failure what failed, where, and
the trace of the call; then a summary. Tests run in parallel. The exit code is
0 only when every test passed.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			var match *regexp.Regexp
			if run != "" {
				re, err := regexp.Compile(run)
				if err != nil {
					return usageError{fmt.Errorf("--run %q is not a regular expression: %w", run, err)}
				}
				match = re
			}
			if parallel < 0 {
				return usageError{fmt.Errorf("--parallel %d: give how many tests may run at once, 1 or more", parallel)}
			}
			names, err := testrun.Find(paths)
			if err != nil {
				return usageError{err}
			}
			lookupEnv, envDiags := a.envLookup()
			if envDiags.HasErrors() {
				a.report(nil, envDiags, nil)
				return exitCoder{exitError}
			}
			files, sources, diags := testrun.Parse(names, lookupEnv)
			if len(diags) > 0 {
				a.report(sources, diags, nil)
			}
			if diags.HasErrors() {
				return exitCoder{exitError}
			}
			logger, err := a.logger()
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("log-level") {
				logger = slog.New(slog.DiscardHandler)
			}
			vars, err := a.varValues()
			if err != nil {
				return err
			}
			runner := &testrun.Runner{
				Registry:  registry(),
				Vars:      vars,
				LookupEnv: lookupEnv,
				Update:    update,
				Parallel:  parallel,
				Match:     match,
				Logger:    logger,
			}
			tests := runner.Selected(files)
			if len(tests) == 0 {
				fmt.Fprintf(a.stderr, "Error: no test matches --run %q.\n", run)
				return exitCoder{exitError}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()

			began := time.Now()
			var results []*testrun.Result
			shown := map[string]bool{} // configuration errors already printed
			failed := 0
			err = runner.Run(ctx, tests, func(r *testrun.Result) {
				results = append(results, r)
				if !r.Passed() {
					failed++
				}
				a.writeResult(r, sources, shown)
			})
			if err != nil {
				return err
			}
			if match == nil {
				for _, m := range testrun.Unused(files) {
					fmt.Fprintf(a.stdout, "warning: the mock of http_api %q at %s:%d:%d answered no request in any test of its file.\n", m.Name, m.Range.Filename, m.Range.Start.Line, m.Range.Start.Column)
				}
			}
			fmt.Fprintf(a.stdout, "\n%d passed, %d failed (%s)\n", len(results)-failed, failed, roundDuration(time.Since(began)))
			if junit != "" {
				if err := writeJUnitFile(junit, results); err != nil {
					return err
				}
			}
			if failed > 0 {
				return exitCoder{exitError}
			}
			return nil
		},
	}
	a.addVarFlag(c)
	c.Flags().BoolVar(&update, "update", false, "write the snapshots of the tests that have one, instead of comparing with them")
	c.Flags().StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file, for CI")
	c.Flags().IntVar(&parallel, "parallel", 0, "how many tests run at once (default: one per CPU)")
	c.Flags().StringVar(&run, "run", "", "run only the tests whose FILE/NAME matches this regular expression")
	return c
}

// writeResult prints one test's line, then what failed.
// sources are the test files, for quoting them in diagnostics.
func (a *app) writeResult(r *testrun.Result, sources load.Files, shown map[string]bool) {
	if r.Passed() {
		note := ""
		if r.Updated {
			note = ", snapshot written"
		}
		fmt.Fprintf(a.stdout, "ok    %s (%s%s)\n", r.Test.ID(), roundDuration(r.Took), note)
		return
	}
	fmt.Fprintf(a.stdout, "FAIL  %s (%s)\n", r.Test.ID(), roundDuration(r.Took))
	if r.Diags.HasErrors() {
		// The same errors would come again for every test of the file:
		// they are printed once.
		var fresh hcl.Diagnostics
		for _, d := range r.Diags {
			key := fmt.Sprintf("%v|%s|%s", d.Subject, d.Summary, d.Detail)
			if !shown[key] {
				shown[key] = true
				fresh = append(fresh, d)
			}
		}
		if fresh.HasErrors() {
			fmt.Fprintf(a.stdout, "      the configuration does not load with this test's variables and mocks:\n")
			var b bytes.Buffer
			files := maps.Clone(r.Files)
			maps.Copy(files, sources)
			writeDiagnostics(&b, files, fresh, r.Redactor)
			writeIndented(a.stdout, b.String(), "      ")
		} else {
			fmt.Fprintf(a.stdout, "      the configuration does not load with this test's variables and mocks (the errors are above).\n")
		}
		return
	}
	writeIndented(a.stdout, failureText(r), "      ")
}

// failureText is what failed in a test: each failure with its place and
// diff, then the trace of the call.
func failureText(r *testrun.Result) string {
	var b strings.Builder
	for _, f := range r.Failures {
		if f.Range != nil && f.Range.Filename != "" {
			fmt.Fprintf(&b, "%s:%d:%d: ", f.Range.Filename, f.Range.Start.Line, f.Range.Start.Column)
		}
		b.WriteString(f.Message)
		b.WriteByte('\n')
		if f.Diff != "" {
			b.WriteString(f.Diff)
			if !strings.HasSuffix(f.Diff, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	if len(r.Trace) > 0 {
		b.WriteByte('\n')
		var t bytes.Buffer
		_ = writeTraceText(&t, r.Test.Target, r.Trace, r.Took)
		b.WriteString(r.Redactor.Redact(t.String()))
	}
	if r.Diags.HasErrors() {
		var t bytes.Buffer
		writeDiagnostics(&t, r.Files, r.Diags, r.Redactor)
		b.WriteString(t.String())
	}
	return b.String()
}

// writeIndented writes text with each line indented.
func writeIndented(w io.Writer, text, indent string) {
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprint(w, indent+line)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
}

// writeJUnitFile writes the results as JUnit XML to name.
func writeJUnitFile(name string, results []*testrun.Result) error {
	var b bytes.Buffer
	if err := testrun.WriteJUnit(&b, results, failureText); err != nil {
		return err
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("cannot write the JUnit report: %w", err)
	}
	return nil
}
