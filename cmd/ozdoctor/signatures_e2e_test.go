//go:build e2e

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Without a path, test runs every case of the built-in signatures that the
// binary carries: as many as there are on disk, and all pass.
func TestTestCommandRunsEveryBuiltinCase(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("../../signatures/*/testdata/*.txtar")
	want := len(paths)
	code, out, stderr := runCLI(t, "test")
	if code != 0 || want == 0 || !strings.HasSuffix(out, fmt.Sprintf("%d passed, 0 failed\n", want)) {
		t.Fatalf("test: exit %d, %d cases on disk\n%s\n%s", code, want, out, stderr)
	}
}
