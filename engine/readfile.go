package engine

import (
	"fmt"
	"io"
	"os"
)

// MaxConfigFileBytes caps every file read while a configuration loads (the
// configuration files, file(), ca_file), so that a stray path to a large or
// endless file fails clearly instead of filling memory.
const MaxConfigFileBytes = 10 << 20

// ReadConfigFile reads a file named by a configuration. Only regular files
// are read, so that a path to a device such as /dev/zero or to a FIFO fails
// at once instead of filling memory or blocking the load, and at most
// MaxConfigFileBytes of them.
func ReadConfigFile(path string) ([]byte, error) {
	// Open without blocking on a FIFO: check what the path is first.
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot read %s: it is not a regular file (%s); only regular files are read", path, describeMode(info.Mode()))
	}
	if info.Size() > MaxConfigFileBytes {
		return nil, fmt.Errorf("cannot read %s: it has %d bytes, more than the %d bytes (10 MiB) a configuration may read from one file", path, info.Size(), MaxConfigFileBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	// The file may have been replaced or grown since Stat: check again on
	// what was opened, and never read past the cap.
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot read %s: it is not a regular file; only regular files are read", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(b) > MaxConfigFileBytes {
		return nil, fmt.Errorf("cannot read %s: it has more than the %d bytes (10 MiB) a configuration may read from one file", path, MaxConfigFileBytes)
	}
	return b, nil
}

// describeMode names the kind of a file that is not regular.
func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
