package scenario

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

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
