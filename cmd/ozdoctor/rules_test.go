package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRulesGenerate(t *testing.T) {
	// The committed files are what the command writes.
	var out, errOut bytes.Buffer
	if code := run([]string{"rules", "generate", "--check", "--dir", "../../rules", "--dashboards-dir", "../../dashboards"}, &out, &errOut); code != exitOK {
		t.Fatalf("rules generate --check on the repository: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	// Into an empty directory it writes every file; --check then passes,
	// and fails once a file is changed.
	dir := t.TempDir()
	rulesDir, dashDir := filepath.Join(dir, "rules"), filepath.Join(dir, "dashboards")
	out.Reset()
	if code := run([]string{"rules", "generate", "--dir", rulesDir, "--dashboards-dir", dashDir}, &out, &errOut); code != exitOK {
		t.Fatalf("rules generate: exit %d\n%s", code, errOut.String())
	}
	for _, f := range []string{"ozdoctor-sidecar.yml", "ozone-native.yml", "tests/ozdoctor-sidecar_test.yml",
		"tests/ozone-native_test.yml", "grafana/ozdoctor-sidecar.yaml", "grafana/ozone-native.yaml"} {
		if _, err := os.Stat(filepath.Join(rulesDir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, f := range []string{"ozdoctor.json", "provisioning/dashboards.yaml"} {
		if _, err := os.Stat(filepath.Join(dashDir, f)); err != nil {
			t.Error(err)
		}
	}
	if err := os.WriteFile(filepath.Join(rulesDir, "ozone-native.yml"), []byte("groups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"rules", "generate", "--check", "--dir", rulesDir, "--dashboards-dir", dashDir}, &out, &errOut); code != exitFindings ||
		!strings.Contains(out.String(), "ozone-native.yml") {
		t.Fatalf("--check after a change: exit %d, output %q", code, out.String())
	}
}
