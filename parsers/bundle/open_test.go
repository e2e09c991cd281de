package bundle

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"testing"
)

func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.log")
	writeFile(t, good, []byte("line\n"))
	f, err := openFile(good)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "line\n" {
		t.Errorf("read %q, %v; want \"line\\n\"", b, err)
	}
	if f.Name() != good {
		t.Errorf("name %q, want %q", f.Name(), good)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}

	missing := filepath.Join(dir, "gone.log")
	_, err = openFile(missing)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want a *fs.PathError for %s that is fs.ErrNotExist", err, missing)
	}
	if got := openError("file", err); got != "file not found" {
		t.Errorf("openError = %q, want \"file not found\"", got)
	}
}
