package scenario

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Sample returns the scenario of the bundle shipped in examples/bundles: a
// three-SCM, four-OM, six-datanode cluster over three hours in which all five
// known defects occur, with background noise, rotation, gzip and clock skew.
func Sample() (*Scenario, Render) { return Cluster13(3*time.Hour, 4) }

// Cluster13 is the sample's cluster over dur with noise background events
// per host and minute; the five defects and three operational problems
// occur in the sample's first three
// hours, so a longer dur gives a cluster that is mostly healthy.
func Cluster13(dur time.Duration, noise int) (*Scenario, Render) {
	const seed = 2026
	start := time.Date(2026, 8, 23, 9, 0, 0, 0, time.UTC)
	cl := NewCluster(rand.New(rand.NewSource(seed)), 3, 4, 6)
	// The ZDU lines of HDDS-17425 exist only on the 2.3.0-SNAPSHOT line
	// (the HDDS-14496-zdu branch): the sample's cluster runs it, so that
	// every defect it shows can happen on the version its banners print.
	cl.Version = "2.3.0-SNAPSHOT"
	s := New(seed, start, dur, cl)
	// A Ratis close threshold raised above the pause of hdds17519/skip-stale
	// (signatures-scm.md §1.1), as the clusters that show HDDS-17519 have.
	s.Site = map[string]string{
		"ozone.scm.ha.raft.server.close.threshold": "15m",
		"ozone.om.service.ids":                     "omservice",
	}
	scripts := Scripts()
	for _, sc := range sampleIncidents() {
		scripts[sc.name](s, start.Add(sc.at))
	}
	return s, Render{Layout: LayoutFile, Noise: noise, Rotate: true, Gzip: true,
		Skew: map[string]time.Duration{"scm2": 2 * time.Second, "dn4": -3 * time.Second, "om3": -4 * time.Second, "om4": 2 * time.Second}}
}

// incident is a defect's script and when it starts.
type incident struct {
	name string
	at   time.Duration
}

// sampleIncidents returns the sample's five defects and three operational
// problems, and when they start in its three hours.
func sampleIncidents() []incident {
	return []incident{
		{"hdds17519/skip-stale", 20 * time.Minute},
		{"hdds17425/registered-during-finalization", 45 * time.Minute},
		{"hdds17674/stuck-leader", 70 * time.Minute},
		{"hdds16839/lost-leadership", 100 * time.Minute},
		{"hdds16809/force-delete", 120 * time.Minute},
		{"problems/dn-gc-pause", 35 * time.Minute},
		{"problems/dn-out-of-space", 85 * time.Minute},
		{"problems/dn-volume-failed", 150 * time.Minute},
	}
}

// WriteTarGz renders the scenario and writes it as a .tar.gz whose entries
// sit under prefix, byte for byte the same for the same scenario.
func (s *Scenario) WriteTarGz(w io.Writer, r Render, prefix string) error {
	dir, err := os.MkdirTemp("", "ozdoctor-bundle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := s.Render(dir, r); err != nil {
		return err
	}
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		hdr := &tar.Header{Name: filepath.ToSlash(filepath.Join(prefix, rel)), Mode: 0o644, Size: int64(len(data)),
			ModTime: s.End.Truncate(time.Second), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("tar %s: %w", rel, err)
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}
