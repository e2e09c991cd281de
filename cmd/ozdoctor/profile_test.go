package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --cpuprofile and --memprofile write pprof profiles (gzipped protocol
// buffers) of the run; a profile that cannot be created is a usage error
// before any input is read.
func TestAnalyzeProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	if code, _, stderr := runCLI(t, "analyze", "--format", "json", "--cpuprofile", cpu, "--memprofile", mem, sample); code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{cpu, mem} {
		data, err := os.ReadFile(p)
		if err != nil || len(data) < 100 || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("%s: %d bytes, %v", p, len(data), err)
		}
	}
	code, _, stderr := runCLI(t, "analyze", "--cpuprofile", filepath.Join(dir, "missing", "cpu.pprof"), sample)
	if code != exitUsage || !strings.Contains(stderr, "--cpuprofile") {
		t.Errorf("unwritable profile: exit %d, %s", code, stderr)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "4096": 4096, "16MiB": 16 << 20, "2 GiB": 2 << 30, "64KiB": 64 << 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "16MB", "1.5GiB", "9999999999GiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}
