package lsp

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/testrun"
)

// A configuration is the *.hcl files of a directory, as mcpdecl serve DIR
// and mcpdecl validate DIR read them, with the editor's buffers in place of
// their files (see configurations for a directory of examples). Its
// diagnostics are validate's: the same load, the same words, the same
// ranges.

// largeBuffers is the size of buffers from which a load collects garbage
// less often, as validate does; loadGCPercent is the GOGC then.
const (
	largeBuffers  = 64 << 10
	loadGCPercent = 400
)

// schedule runs the diagnostics of the configuration in dir once the
// typing pauses.
func (s *server) schedule(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if t, ok := s.timers[dir]; ok {
		t.Reset(s.opts.Debounce)
		return
	}
	s.timers[dir] = time.AfterFunc(s.opts.Debounce, func() { s.publish(dir) })
}

// publish loads the configuration in dir and sends every file of it its
// diagnostics, an empty list clearing those sent before.
func (s *server) publish(dir string) {
	// One run at a time, each reading the buffers when it starts: a later
	// run publishes later, and what it read is newer.
	s.run.Lock()
	defer s.run.Unlock()
	byFile := s.diagnose(dir)
	s.mu.Lock()
	shown := s.shown[dir]
	s.shown[dir] = map[string]bool{}
	for path := range byFile {
		s.shown[dir][path] = true
	}
	versions := map[string]int32{}
	for path, d := range s.docs {
		versions[path] = d.version
	}
	conn, closed := s.conn, s.closed
	s.mu.Unlock()
	if closed || conn == nil {
		return
	}
	for path := range shown {
		if _, ok := byFile[path]; !ok {
			byFile[path] = nil
		}
	}
	paths := slices.Sorted(maps.Keys(byFile))
	for _, path := range paths {
		p := protocol.PublishDiagnosticsParams{URI: pathURI(path), Diagnostics: byFile[path]}
		if p.Diagnostics == nil {
			p.Diagnostics = []protocol.Diagnostic{}
		}
		if v, ok := versions[path]; ok && v >= 0 {
			version := protocol.UInteger(v)
			p.Version = &version
		}
		if err := conn.Notify(context.Background(), protocol.ServerTextDocumentPublishDiagnostics, p); err != nil {
			return // the connection is closing
		}
	}
}

// diagnose loads the configuration in dir and returns its diagnostics by
// file, every file of the configuration present. Diagnostics without a
// place in a file (a buffer too large to read) go to every open buffer of
// the configuration, at its start.
func (s *server) diagnose(dir string) map[string][]protocol.Diagnostic {
	sources := map[string][]byte{}
	docs := map[string]*document{}
	s.mu.Lock()
	for path, d := range s.docs {
		if filepath.Dir(path) == dir && !load.IsTestFile(path) {
			sources[path] = []byte(d.text)
			docs[path] = d
		}
	}
	s.mu.Unlock()
	names, _ := load.ConfigFiles([]string{dir})
	for path := range sources {
		names = append(names, path)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	out := map[string][]protocol.Diagnostic{}
	for _, group := range s.configurations(names, docs) {
		s.load(out, group, sources, docs)
	}
	s.diagnoseTests(out, dir)
	return out
}

// configurations groups the files of a directory into the configurations
// they make: the directory as a whole, as validate DIR reads it; but when
// several of its files declare a server block (a directory of examples,
// each a configuration of its own), each open file alone, as validate
// FILE reads it.
func (s *server) configurations(names []string, docs map[string]*document) [][]string {
	servers := 0
	for _, name := range names {
		var body *hclsyntax.Body
		if d, ok := docs[name]; ok {
			body = s.syntax(d).f.body
		} else if f := s.diskFile(name); f != nil {
			body = f.body
		}
		if body != nil && slices.ContainsFunc(body.Blocks, func(b *hclsyntax.Block) bool { return b.Type == "server" }) {
			servers++
		}
	}
	if servers <= 1 {
		if len(names) == 0 {
			return nil
		}
		return [][]string{names}
	}
	var groups [][]string
	for _, name := range names {
		if _, open := docs[name]; open {
			groups = append(groups, []string{name})
		}
	}
	return groups
}

// load loads the configuration of the files names, as validate does, and
// adds its diagnostics to out, every file of it present.
func (s *server) load(out map[string][]protocol.Diagnostic, names []string, sources map[string][]byte, docs map[string]*document) {
	size := 0
	for _, name := range names {
		size += len(sources[name])
	}
	// As validate does for a large configuration: collecting garbage less
	// often while it loads makes it about twice as fast.
	if size >= largeBuffers {
		defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	}
	secrets := &text.Redactor{}
	programs := &siteCollector{}
	cfg, files, diags := load.Load(load.Options{
		Registry:  s.opts.Registry,
		LookupEnv: s.opts.LookupEnv,
		Redactor:  secrets,
		Sources:   sources,
		Programs:  programs.add,
	}, names...)
	if cfg != nil {
		s.keepSchemas(cfg, docs)
		_ = cfg.Close()
	}
	for _, name := range names {
		out[name] = nil
	}
	s.keepParses(docs, files)
	s.keepSites(programs, docs, fileTexts(files), diags)
	// A diagnostic without a place goes to the buffers of this
	// configuration.
	mine := map[string][]byte{}
	for _, name := range names {
		if src, ok := sources[name]; ok {
			mine[name] = src
		}
	}
	addDiagnostics(out, diags, files, mine, secrets)
}

// diagnoseTests adds the diagnostics of the open test files in dir to out:
// those mcpdecl test reports before it runs anything (the files are parsed
// and checked against the configuration's outline; no test runs).
func (s *server) diagnoseTests(out map[string][]protocol.Diagnostic, dir string) {
	docs := map[string]*document{}
	s.mu.Lock()
	for path, d := range s.docs {
		if filepath.Dir(path) == dir && load.IsTestFile(path) {
			docs[path] = d
		}
	}
	s.mu.Unlock()
	for path, d := range docs {
		sources := map[string][]byte{path: []byte(d.text)}
		programs := &siteCollector{}
		_, files, diags := testrun.ParseSourcesWith([]string{path}, sources, s.lookupEnv(), programs.add)
		out[path] = nil
		s.keepParses(docs, files)
		s.keepSites(programs, map[string]*document{path: d}, fileTexts(files), diags)
		addDiagnostics(out, diags, files, sources, &text.Redactor{})
	}
}

func (s *server) lookupEnv() func(string) (string, bool) {
	if s.opts.LookupEnv == nil {
		return os.LookupEnv
	}
	return s.opts.LookupEnv
}

// keepParses records the parses of the buffers docs that a load made:
// completion and hover read them.
func (s *server) keepParses(docs map[string]*document, files load.Files) {
	for path, d := range docs {
		if f, ok := files[path]; ok && f != nil {
			if body, ok := f.Body.(*hclsyntax.Body); ok {
				s.parsedDoc(d, &parsedFile{path: path, text: d.text, version: d.version, body: body})
			}
		}
	}
}

// fileTexts are the texts of the files a load read, by name.
func fileTexts(files load.Files) map[string]string {
	out := make(map[string]string, len(files))
	for name, f := range files {
		if f != nil {
			out[name] = string(f.Bytes)
		}
	}
	return out
}

// addDiagnostics converts diags to the protocol's, by file, with what
// secrets knows of redacted. Diagnostics without a place in a file go to
// every buffer of sources, at its start.
func addDiagnostics(out map[string][]protocol.Diagnostic, diags hcl.Diagnostics, files load.Files, sources map[string][]byte, secrets *text.Redactor) {
	for _, d := range diags {
		pd := protocol.Diagnostic{Message: secrets.Redact(d.Summary), Source: ptr("mcpdecl")}
		if detail := secrets.Redact(d.Detail); detail != "" {
			pd.Message += ": " + detail
		}
		severity := protocol.DiagnosticSeverityError
		if d.Severity == hcl.DiagWarning {
			severity = protocol.DiagnosticSeverityWarning
		}
		pd.Severity = &severity
		if d.Subject == nil {
			for path := range sources {
				out[path] = append(out[path], pd)
			}
			continue
		}
		name := d.Subject.Filename
		text := sourceText(name, files, sources)
		pd.Range = span(text, *d.Subject)
		out[name] = append(out[name], pd)
	}
}

// sourceText is the text the load read of the file name.
func sourceText(name string, files load.Files, sources map[string][]byte) string {
	if f, ok := files[name]; ok && f != nil {
		return string(f.Bytes)
	}
	if src, ok := sources[name]; ok {
		return string(src)
	}
	if b, err := engine.ReadConfigFile(name); err == nil {
		return string(b)
	}
	return ""
}

func ptr[T any](v T) *T { return &v }
