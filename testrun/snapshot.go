package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/words"
)

// snapshot compares the structured content of out with the test's
// snapshot file, or writes the file when r.Update is set.
func (r *Runner) snapshot(res *Result, t *Test, out *outcome) {
	if out.isError {
		return // the failure is already reported; an error has no structured content
	}
	got, err := snapshotJSON(out.structured)
	if err != nil {
		res.fail(&t.SnapshotRange, "The structured content cannot be written as JSON: %s.", err)
		return
	}
	// The snapshot is read and written through a Root of the test file's
	// directory, so that a link made since the file was read cannot lead
	// out of it either.
	root, err := os.OpenRoot(filepath.Dir(t.File.Name))
	if err != nil {
		res.fail(&t.SnapshotRange, "Cannot open the directory of the snapshot: %s.", err)
		return
	}
	defer root.Close()
	want, err := readSnapshot(root, t.snapshotRel)
	if r.Update {
		if err == nil && bytes.Equal(want, got) {
			return
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			res.fail(&t.SnapshotRange, "Cannot write the snapshot: %s.", err)
			return
		}
		if err := root.MkdirAll(filepath.Dir(t.snapshotRel), 0o755); err != nil {
			res.fail(&t.SnapshotRange, "Cannot write the snapshot: %s.", err)
			return
		}
		if err := root.WriteFile(t.snapshotRel, got, 0o644); err != nil {
			res.fail(&t.SnapshotRange, "Cannot write the snapshot: %s.", err)
			return
		}
		res.Updated = true
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		res.fail(&t.SnapshotRange, "The snapshot %s does not exist yet; run mcpdecl test with --update to write it, and review it.", t.Snapshot)
		return
	}
	if err != nil {
		res.fail(&t.SnapshotRange, "Cannot read the snapshot: %s.", err)
		return
	}
	if bytes.Equal(want, got) {
		return
	}
	d := diff.Diff(t.Snapshot, want, "result", got)
	res.Failures = append(res.Failures, Failure{
		Message: "The structured content differs from the snapshot " + t.Snapshot + "; if the change is right, run mcpdecl test with --update.",
		Range:   &t.SnapshotRange,
		Diff:    res.Redactor.Redact(string(d)),
	})
}

// snapshotJSON is a structured content as a snapshot holds it: indented
// JSON, keys sorted, ending in a newline.
func snapshotJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// readSnapshot reads the snapshot at rel under root: a regular file of at
// most engine.MaxConfigFileBytes, as every file a test file names.
func readSnapshot(root *os.Root, rel string) ([]byte, error) {
	info, err := root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; a snapshot is one", rel)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, engine.MaxConfigFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > engine.MaxConfigFileBytes {
		return nil, fmt.Errorf("%s has more than the %d bytes (10 MiB) a snapshot may have", rel, engine.MaxConfigFileBytes)
	}
	return b, nil
}

// snapshotPath is the path of a snapshot (written as given, joined to
// the test file's directory as path) under that directory, where
// snapshots are read and written; a path that leads out of it, by ../, an
// absolute path or a symbolic link, is an error at rng.
func (d *decoder) snapshotPath(rng hcl.Range, given, path, test string) string {
	const summary = "Snapshot outside the test's directory"
	dir, err := filepath.Abs(d.dir)
	abs := path
	if err == nil {
		abs, err = filepath.Abs(path)
	}
	if err != nil {
		d.error(rng, summary, "%s.", words.UpperFirst(err.Error()))
		return ""
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		d.error(rng, summary, "The snapshot %q leads out of the directory of the test file (%s), where snapshots are read and written. Give a path under it, such as \"testdata/%s.json\".", given, d.dir, test)
		return ""
	}
	root, err := os.OpenRoot(dir)
	if err == nil {
		_, err = root.Stat(rel)
		_ = root.Close()
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.error(rng, summary, "The snapshot %q cannot be used: %s. Snapshots are read and written under the directory of the test file (%s), and a symbolic link on the way may not lead out of it.", given, err, d.dir)
		return ""
	}
	return rel
}
