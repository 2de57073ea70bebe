package openapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// prismSpecs are the documents TestPrism checks: ours, real ones in the
// repository, and (with $MCPDECL_OPENAPI_DIR) real ones of the APIs.guru
// directory, chosen for their variety.
var prismSpecs = []struct{ path, why string }{
	{"testdata/petstore.yaml", "path, query (form, deepObject) and header parameters; JSON, form and multipart bodies; an API key"},
	{"testdata/swagger.json", "Swagger 2.0: formData, collectionFormat, basic auth"},
	{"testdata/apikeys.yaml", "a required API key parameter sent by the http_api's auth, not by the model"},
	{"testdata/google.yaml", "Google's standard parameters left to the API, OAuth 2.0 as a bearer token"},
	{"../../examples/testdata/httpbin.org.json", "httpbin, as imported in the README's script"},
	{"$DIR/apis.guru.json", "APIs.guru's own API: OpenAPI 3.0, path parameters"},
	{"$DIR/randomlovecraft.com.json", "a small OpenAPI 3.0 API, JSON lists of objects"},
	{"$DIR/6-dot-authentiqio.appspot.com.json", "JSON bodies, headers, several methods"},
	{"$DIR/adafruit.com.json", "Swagger 2.0, many operations with JSON bodies and query parameters"},
	{"$DIR/bigdatacloud.net.json", "query parameters with formats and an API key in the query"},
	{"$DIR/hubhopper.com.json", "two API keys required together (x-api-key and hhPartnerId)"},
	{"$DIR/cenit.io.json", "two API keys required together, on every operation; 116 tools"},
	{"$DIR/rumble.run.json", "text/json bodies, responses of */*"},
	{"$DIR/youneedabudget.com.json", "YNAB: allOf [{required}, {$ref}] inside bodies flattened into arguments (SaveTransaction)"},
}

// prismProblem finds the type of a problem Prism answered with.
var prismProblem = regexp.MustCompile(`errors#([A-Z_]+)`)

// refusals are the problems Prism answers a request that breaks the
// document with: the request was wrong.
var refusals = map[string]bool{
	"UNPROCESSABLE_ENTITY":    true, // a parameter or the body breaks its schema
	"UNAUTHORIZED":            true, // the security requirement is not met
	"NO_PATH_MATCHED_ERROR":   true, // no path of the document matches
	"NO_METHOD_MATCHED_ERROR": true,
	"INVALID_CONTENT_TYPE":    true,
	// Not NOT_ACCEPTABLE: a tool sends no Accept header, which Prism takes
	// for application/json and refuses when the document's response is,
	// say, */*.
}

// TestPrism imports documents, serves each against Stoplight Prism, an
// independent mock server that validates every request against the
// document (prism mock --errors), and calls every tool with arguments made
// from the schemas' examples: it asserts that Prism accepted every request
// and that every structured result matched its outputSchema (the engine
// validates it: a mismatch is a tool error). .ci/prism.sh installs Prism
// and runs it; MCPDECL_PRISM_SPECS names other documents of the directory
// (space-separated) for a wider sweep by hand.
func TestPrism(t *testing.T) {
	// Like TestDirectory, it runs where .ci/prism.sh sets its variables
	// (and checks that it ran), not in the plain go test ./... of CI.
	prism := os.Getenv("MCPDECL_PRISM")
	if prism == "" {
		t.Skip("set MCPDECL_PRISM to Stoplight Prism's executable (npm install @stoplight/prism-cli@5.14.2), and MCPDECL_OPENAPI_DIR for the directory's documents")
	}
	dir := os.Getenv("MCPDECL_OPENAPI_DIR")
	specs := prismSpecs
	if more := os.Getenv("MCPDECL_PRISM_SPECS"); more != "" {
		// A wider sweep, by hand: documents of the directory, by name.
		specs = nil
		for _, name := range strings.Fields(more) {
			specs = append(specs, struct{ path, why string }{"$DIR/" + name, "named by MCPDECL_PRISM_SPECS"})
		}
	}
	for _, s := range specs {
		path := s.path
		if rest, ok := strings.CutPrefix(path, "$DIR/"); ok {
			if dir == "" {
				if os.Getenv("CI") == "true" {
					t.Fatalf("MCPDECL_OPENAPI_DIR is not set: .ci/prism.sh sets it")
				}
				t.Logf("%s left out: MCPDECL_OPENAPI_DIR is not set", rest)
				continue
			}
			path = filepath.Join(dir, rest)
		}
		t.Run(strings.TrimPrefix(s.path, "$DIR/"), func(t *testing.T) {
			checkWithPrism(t, prism, path)
		})
	}
}

// checkWithPrism imports one document and calls its tools against Prism.
func checkWithPrism(t *testing.T, prism, path string) {
	base := startPrism(t, prism, path)
	spec, res, err := importPath(path, Options{BaseURL: base, Source: filepath.Base(path)})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	// Every credential the import asks for gets a value: Prism checks
	// that one is sent, not which.
	cfg, diags := loadFiles(paths, func(k string) (string, bool) {
		if strings.HasPrefix(k, "MCPDECL_VAR_") {
			return "", false // the base URL keeps the one given
		}
		return "test-credential", true
	})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	t.Cleanup(func() { _ = cfg.Close() })

	// Prism routes a path with a query string in it (/current?city={city})
	// as a literal path: requests to such a document's operations are not
	// routed, through no fault of theirs.
	queryPaths := false
	for p := range obj(spec.Root["paths"]) {
		queryPaths = queryPaths || strings.Contains(p, "?")
	}
	var called, accepted, unanswered int
	skipped := map[string]int{}
	for i, tool := range cfg.Tools {
		if i == 60 {
			break
		}
		args, why := sampleArgs(tool.InputSchema())
		if why != "" {
			skipped[why]++
			continue
		}
		called++
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.Patience)
		r := tool.Call(ctx, raw)
		cancel()
		if !r.IsError {
			accepted++
			if tool.OutputSchema() != nil && r.Structured == nil {
				t.Errorf("%s %s: no structured result though the tool has an outputSchema", tool.Name(), raw)
			}
			continue
		}
		text := r.Text()
		switch m := prismProblem.FindStringSubmatch(text); {
		case strings.Contains(text, "does not match the tool's outputSchema"):
			t.Errorf("%s %s: Prism's answer, made from the document, breaks the outputSchema:\n%s", tool.Name(), raw, text)
		case m != nil && m[1] == "NO_PATH_MATCHED_ERROR" && queryPaths:
			unanswered++
		case m != nil && refusals[m[1]]:
			t.Errorf("%s %s: Prism refused the request as breaking the document:\n%s", tool.Name(), raw, text)
		case m != nil:
			unanswered++ // Prism could not make an answer (NO_COMPLEX_OBJECT_TEXT…)
		default:
			t.Errorf("%s %s: %s", tool.Name(), raw, text)
		}
	}
	var reasons []string
	for why, n := range skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(reasons)
	t.Logf("%d tools, %d called: %d accepted, %d the mock could not answer; not called for their arguments: %s",
		len(cfg.Tools), called, accepted, unanswered, strings.Join(append(reasons, "none")[:max(len(reasons), 1)], "; "))
	if accepted == 0 {
		t.Errorf("no request was accepted")
	}
}

// startPrism runs prism mock --errors on the document and returns its URL.
func startPrism(t *testing.T, prism, path string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(prism, "mock", path, "--errors", "--host", "127.0.0.1", "--port", fmt.Sprint(port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready, exited := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var log strings.Builder
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		started := false
		for sc.Scan() {
			mu.Lock()
			if log.Len() < 1<<16 {
				log.WriteString(sc.Text() + "\n")
			}
			mu.Unlock()
			if !started && strings.Contains(sc.Text(), "Prism is listening") {
				started = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-exited:
	case <-time.After(enginetest.Patience):
	}
	select {
	case <-ready:
	default:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("Prism did not start on %s:\n%s", path, log.String())
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// sampleArgs makes arguments valid for an input schema from its examples,
// defaults and constraints; why says what stopped it.
func sampleArgs(s map[string]any) (map[string]any, string) {
	s, _ = schema.Inline(s, 4<<20) // its references to $defs, written in place
	v, why := sample(s, 0)
	if why != "" {
		return nil, why
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, ""
}

// sample makes a value valid for schema s.
func sample(s map[string]any, depth int) (any, string) {
	if depth > 8 {
		return nil, "a schema too deep to sample"
	}
	if v, ok := s["const"]; ok {
		return v, ""
	}
	if ex := list(s["examples"]); len(ex) > 0 {
		return ex[0], ""
	}
	if ex, ok := s["example"]; ok && ex != nil {
		return ex, ""
	}
	if d, ok := s["default"]; ok && d != nil {
		return d, ""
	}
	if e := list(s["enum"]); len(e) > 0 {
		for _, v := range e {
			if v != nil {
				return v, ""
			}
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		for _, alt := range list(s[k]) {
			if v, why := sample(obj(alt), depth+1); why == "" {
				return v, ""
			}
		}
	}
	if all := list(s["allOf"]); len(all) > 0 {
		merged := map[string]any{}
		for _, part := range all {
			v, why := sample(obj(part), depth+1)
			if why != "" {
				return nil, why
			}
			m, ok := v.(map[string]any)
			if !ok {
				return v, ""
			}
			for k, x := range m {
				merged[k] = x
			}
		}
		return merged, ""
	}
	typ := str(s["type"])
	for _, t := range list(s["type"]) {
		if t != "null" {
			typ = str(t)
			break
		}
	}
	if typ == "" {
		typ = "string"
		if s["properties"] != nil {
			typ = "object"
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props := obj(s["properties"])
		for _, r := range list(s["required"]) {
			name := str(r)
			v, why := sample(obj(props[name]), depth+1)
			if why != "" {
				return nil, why
			}
			out[name] = v
		}
		return out, ""
	case "array":
		n := 1
		if m, ok := num(s["minItems"]); ok && m > 1 {
			n = int(m)
		}
		item, why := sample(obj(s["items"]), depth+1)
		if why != "" {
			return nil, why
		}
		out := make([]any, n)
		for i := range out {
			out[i] = item
		}
		return out, ""
	case "integer", "number":
		v := 1.0
		if m, ok := num(s["minimum"]); ok {
			v = m
		} else if m, ok := num(s["exclusiveMinimum"]); ok {
			v = m + 1
		} else if m, ok := num(s["maximum"]); ok && m < 1 {
			v = m
		}
		if m, ok := num(s["multipleOf"]); ok && m > 0 {
			v = m
		}
		return v, ""
	case "boolean":
		return true, ""
	}
	return sampleString(s)
}

// sampleString makes a string valid for s, by its format, lengths and
// pattern.
func sampleString(s map[string]any) (any, string) {
	formats := map[string]string{
		"date-time": "2024-01-02T03:04:05Z", "date": "2024-01-02", "time": "03:04:05Z",
		"email": "user@example.com", "uri": "https://example.com/x", "url": "https://example.com/x",
		"uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
		"hostname": "example.com", "byte": "aGVsbG8=", "password": "secret-1",
	}
	v, known := formats[str(s["format"])]
	candidates := []string{v}
	if !known {
		candidates = []string{"example", "abc", "a1", "1", "ABC", "a", "x-1", "2024-01-02"}
	}
	minLen, _ := num(s["minLength"])
	maxLen, hasMax := num(s["maxLength"])
	var re *regexp.Regexp
	if p := str(s["pattern"]); p != "" {
		var err error
		if re, err = regexp.Compile(p); err != nil {
			return nil, "a pattern Go cannot run, with no example"
		}
	}
	for _, c := range candidates {
		for len(c) < int(minLen) {
			c += "a"
		}
		if hasMax && len(c) > int(maxLen) {
			c = c[:int(maxLen)]
		}
		if re == nil || re.MatchString(c) {
			return c, ""
		}
	}
	return nil, "a pattern with no example"
}

// num reads a number of a schema, whatever its Go type.
func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
