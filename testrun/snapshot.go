package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/diff"
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
	want, err := os.ReadFile(t.Snapshot)
	if r.Update {
		if err == nil && bytes.Equal(want, got) {
			return
		}
		if err := os.MkdirAll(filepath.Dir(t.Snapshot), 0o755); err != nil {
			res.fail(&t.SnapshotRange, "Cannot write the snapshot: %s.", err)
			return
		}
		if err := os.WriteFile(t.Snapshot, got, 0o644); err != nil {
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
