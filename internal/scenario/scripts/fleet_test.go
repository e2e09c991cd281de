package scripts

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A fleet is rendered period by period into per-host, per-period
// directories with gzipped rotations, the same bytes every time, and stops
// at its size.
func TestRenderFleet(t *testing.T) {
	digest := func(dir string) (string, map[string]int) {
		h := sha256.New()
		count := map[string]int{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			fmt.Fprintf(h, "%s %x\n", rel, sha256.Sum256(data))
			switch parts := strings.Split(rel, string(filepath.Separator)); {
			case len(parts) == 3:
				count["host/"+parts[0]]++
				count["period/"+parts[1]]++
				if strings.HasSuffix(rel, ".gz") {
					count["gz"]++
				}
			case len(parts) == 2 && parts[1] == "ozone-site.xml":
				count["site"]++
			default:
				t.Errorf("unexpected file %s", rel)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", h.Sum(nil)), count
	}
	f := Fleet{Datanodes: 6, Periods: 3, Period: 2 * time.Hour, Noise: 2, Seed: 7}
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := RenderFleet(dir, f); err != nil {
			t.Fatal(err)
		}
	}
	da, count := digest(a)
	if db, _ := digest(b); da != db {
		t.Error("two renders of one fleet differ")
	}
	hosts, periods := 0, 0
	for k := range count {
		hosts += btoi(strings.HasPrefix(k, "host/"))
		periods += btoi(strings.HasPrefix(k, "period/"))
	}
	if hosts != 3+4+6 || periods != 3 || count["site"] != 1 || count["gz"] < 2*13*3 {
		t.Errorf("%d hosts, %d periods, %d ozone-site.xml, %d gzipped rotations: %v", hosts, periods, count["site"], count["gz"], count)
	}
	// Bytes stops after the period that reaches it.
	c := t.TempDir()
	f.Bytes = 1
	if err := RenderFleet(c, f); err != nil {
		t.Fatal(err)
	}
	if _, count := digest(c); len(count) == 0 || count["period/2026-08-01T02"] != 0 {
		t.Errorf("with Bytes 1, more than one period: %v", count)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
