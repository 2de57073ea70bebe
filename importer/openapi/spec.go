package openapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpdecl/mcpdecl/importer/overlay"
)

// MaxSpecBytes is the largest document read, external references included.
const MaxSpecBytes = 64 << 20

// Spec is a parsed OpenAPI document.
type Spec struct {
	// Version is "2.0", or the openapi field of a 3.x document.
	Version string
	// Root is the document as plain values: maps, lists, strings, float64,
	// bool and nil.
	Root map[string]any
	// Location is where the document was read from: a file path or a URL,
	// against which relative server URLs and external references resolve.
	Location string

	docs map[string]map[string]any // documents by location, Root included
	read func(loc string) ([]byte, error)
}

// Parse reads a document given as bytes. location names it in messages and
// resolves relative references; read, when not nil, reads the documents
// that references name (see RefAccess.Reader, which bounds what they may
// reach).
func Parse(data []byte, location string, read func(loc string) ([]byte, error)) (*Spec, error) {
	root, err := decode(data, location)
	if err != nil {
		return nil, err
	}
	s := &Spec{Root: root, Location: location, docs: map[string]map[string]any{location: root}, read: read}
	switch {
	case str(root["swagger"]) != "":
		s.Version = str(root["swagger"])
		if !strings.HasPrefix(s.Version, "2.") {
			return nil, fmt.Errorf("%s: swagger %q is not a version this importer reads (2.0, or OpenAPI 3.0 and 3.1)", location, s.Version)
		}
	case str(root["openapi"]) != "":
		s.Version = str(root["openapi"])
		if !strings.HasPrefix(s.Version, "3.") {
			return nil, fmt.Errorf("%s: openapi %q is not a version this importer reads (3.0 and 3.1, or Swagger 2.0)", location, s.Version)
		}
	default:
		return nil, fmt.Errorf("%s is not an OpenAPI document: it has neither an openapi nor a swagger field at its top", location)
	}
	if _, ok := root["paths"].(map[string]any); !ok && root["paths"] != nil {
		return nil, fmt.Errorf("%s: #/paths is not an object", location)
	}
	return s, nil
}

// ReadFile reads a document from a file or an http(s) URL, of at most
// MaxSpecBytes. It reads whatever loc names: it is for the document and
// the overlays a user names, not for what references name.
func ReadFile(loc string) ([]byte, error) {
	if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
		return fetch(loc, http.DefaultClient)
	}
	f, err := os.Open(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, loc)
}

// decode reads JSON or YAML into plain values with string keys.
func decode(data []byte, location string) (map[string]any, error) {
	v, err := overlay.Decode(data, location)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an OpenAPI document: its top is not an object", location)
	}
	return m, nil
}

// deref follows $ref until it reaches a value that is not a reference. It
// returns the value, the location of the document that holds it and the
// name of the last reference followed ("" when v was not one).
func (s *Spec) deref(v any, doc string) (any, string, string, error) {
	name := ""
	for i := 0; ; i++ {
		m, ok := v.(map[string]any)
		if !ok {
			return v, doc, name, nil
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return v, doc, name, nil
		}
		if i == 32 {
			return nil, doc, name, fmt.Errorf("the reference %q leads to a chain of more than 32 references", ref)
		}
		target, tdoc, err := s.resolve(ref, doc)
		if err != nil {
			return nil, doc, name, err
		}
		v, doc, name = target, tdoc, refID(ref, doc)
	}
}

// refID identifies the target of a reference met in document doc, across
// documents: the location of the document it names (doc itself for a
// fragment alone) and its fragment. other.json#/x met in a.json is thus
// not a.json's own #/x.
func refID(ref, doc string) string {
	file, fragment, _ := strings.Cut(ref, "#")
	if file != "" {
		doc = joinLocation(doc, file)
	}
	return doc + "#" + fragment
}

// resolve finds the value a reference points to.
func (s *Spec) resolve(ref, doc string) (any, string, error) {
	file, pointer, _ := strings.Cut(ref, "#")
	target := doc
	if file != "" {
		target = joinLocation(doc, file)
		if _, ok := s.docs[target]; !ok {
			if s.read == nil {
				return nil, doc, &BrokenRef{Ref: ref, Err: errors.New("it names another document, and none may be read here")}
			}
			data, err := s.read(target)
			var refused *RefusedRef
			if errors.As(err, &refused) {
				return nil, doc, &BrokenRef{Ref: ref, Err: refused}
			}
			if err != nil {
				return nil, doc, &BrokenRef{Ref: ref, Err: fmt.Errorf("%s cannot be read: %w", target, err)}
			}
			m, err := decode(data, target)
			if err != nil {
				return nil, doc, &BrokenRef{Ref: ref, Err: err}
			}
			s.docs[target] = m
		}
	}
	v, err := pointerGet(s.docs[target], pointer)
	if err != nil {
		return nil, doc, &BrokenRef{Ref: ref, Err: err}
	}
	return v, target, nil
}

// joinLocation resolves a relative document location against another.
func joinLocation(base, rel string) string {
	if u, err := url.Parse(rel); err == nil && u.IsAbs() {
		return rel
	}
	if b, err := url.Parse(base); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
		if r, err := url.Parse(rel); err == nil {
			return b.ResolveReference(r).String()
		}
	}
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(filepath.Dir(base), rel)
}

// pointerGet follows a JSON pointer (RFC 6901, percent-decoded as in a
// URI fragment) within a document.
func pointerGet(root any, pointer string) (any, error) {
	if p, err := url.PathUnescape(pointer); err == nil {
		pointer = p
	}
	if pointer == "" || pointer == "/" {
		return root, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", pointer)
	}
	v := root
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("nothing is at %q", pointer)
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("nothing is at %q", pointer)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("nothing is at %q", pointer)
		}
	}
	return v, nil
}

// BrokenRef is a reference that leads nowhere, or to a document that
// RefAccess puts out of reach: a document is broken, and an import of it
// fails.
type BrokenRef struct {
	// At is where the reference is, as a JSON pointer, when known.
	At  string
	Ref string
	Err error
}

func (e *BrokenRef) Error() string {
	at := ""
	if e.At != "" {
		at = "at " + e.At + ", "
	}
	var refused *RefusedRef
	if errors.As(e.Err, &refused) {
		return fmt.Sprintf("%sthe reference %q is not followed: %v", at, e.Ref, e.Err)
	}
	return fmt.Sprintf("%sthe reference %q is broken: %v", at, e.Ref, e.Err)
}

func (e *BrokenRef) Unwrap() error { return e.Err }

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// obj is v when it is an object, else nil.
func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// list is v when it is a list, else nil.
func list(v any) []any {
	l, _ := v.([]any)
	return l
}
