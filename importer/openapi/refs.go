package openapi

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// RefAccess says which documents the references of a document may lead
// to. Its zero value is what mcpdecl import openapi allows by default:
// files under the document's own directory (symbolic links included,
// as long as they lead to a file there) and, for a document read from a
// URL, URLs of the same origin (scheme, host and port). Whatever is
// allowed, only regular files and http(s) URLs are read, each of at most
// MaxSpecBytes.
type RefAccess struct {
	// RemoteRefs lets references reach any http(s) URL.
	RemoteRefs bool
	// ExternalFiles lets references reach files outside the document's
	// directory.
	ExternalFiles bool
}

// RefusedRef is a document that a reference names and that RefAccess
// does not let it reach.
type RefusedRef struct {
	// Loc is the document, as the reference resolves.
	Loc string
	// Reason says why it is out of reach.
	Reason string
	// Flag is the command-line flag that allows it.
	Flag string
}

func (e *RefusedRef) Error() string {
	return fmt.Sprintf("%s %s, and import follows such a reference only with %s", e.Loc, e.Reason, e.Flag)
}

// Reader returns the function Parse reads the documents that references
// name with, for a document read from location (a file path or an http(s)
// URL).
func (a RefAccess) Reader(location string) func(loc string) ([]byte, error) {
	origin := ""
	if isURL(location) {
		origin = originOf(location)
	}
	dir := filepath.Dir(location)
	return func(loc string) ([]byte, error) {
		if isURL(loc) {
			return a.readURL(origin, loc)
		}
		if origin != "" || strings.Contains(loc, "://") || strings.HasPrefix(loc, "file:") {
			return nil, errors.New("it is neither a file nor an http(s) URL")
		}
		return a.readFile(dir, loc)
	}
}

// isURL is whether loc is an http(s) URL.
func isURL(loc string) bool {
	return strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
}

// originOf is the scheme, host and port of a URL, in lower case.
func originOf(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// readURL fetches loc, when it is of origin ("" for a document read from
// a file) or remote references are allowed; a redirect may not leave the
// origin either.
func (a RefAccess) readURL(origin, loc string) ([]byte, error) {
	if a.RemoteRefs {
		return fetch(loc, http.DefaultClient)
	}
	if origin == "" {
		return nil, &RefusedRef{Loc: loc, Reason: "is a remote document", Flag: "--allow-remote-refs"}
	}
	if o := originOf(loc); o != origin {
		return nil, &RefusedRef{Loc: loc, Reason: "is of another origin than the document (" + origin + ")", Flag: "--allow-remote-refs"}
	}
	client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if originOf(req.URL.String()) != origin {
			return &RefusedRef{Loc: loc, Reason: "redirects to " + req.URL.Redacted() + ", of another origin than the document (" + origin + ")", Flag: "--allow-remote-refs"}
		}
		if len(via) >= 10 {
			return errors.New("it redirects more than 10 times")
		}
		return nil
	}}
	return fetch(loc, client)
}

// readFile reads the file loc, when it is under dir or external files
// are allowed.
func (a RefAccess) readFile(dir, loc string) ([]byte, error) {
	if a.ExternalFiles {
		return readRegular(loc, os.Stat, os.Open)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return nil, err
	}
	if _, ok := under(absDir, abs); !ok {
		return nil, &RefusedRef{Loc: loc, Reason: "is outside the document's directory (" + dir + ")", Flag: "--allow-external-files"}
	}
	realDir, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("it does not exist")
	}
	if err != nil {
		return nil, err
	}
	rel, ok := under(realDir, real)
	if !ok {
		return nil, &RefusedRef{Loc: loc, Reason: "leads through a symbolic link to " + real + ", outside the document's directory (" + dir + ")", Flag: "--allow-external-files"}
	}
	// The checks above give the messages; the Root keeps the read within
	// the directory should a link change since.
	root, err := os.OpenRoot(realDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return readRegular(rel, root.Stat, root.Open)
}

// under is path relative to dir, and whether it is under dir. Both are
// absolute and clean.
func under(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// readRegular reads name, a regular file of at most MaxSpecBytes, by way
// of stat and open: a device such as /dev/zero or a FIFO is refused
// before it is opened, instead of filling memory or blocking.
func readRegular(name string, stat func(string) (os.FileInfo, error), open func(string) (*os.File, error)) ([]byte, error) {
	info, err := stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("it does not exist")
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("it is not a regular file, and only regular files are read")
	}
	if info.Size() > MaxSpecBytes {
		return nil, fmt.Errorf("it is larger than %d MiB", MaxSpecBytes>>20)
	}
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("it is not a regular file, and only regular files are read")
	}
	return readCapped(f, name)
}
