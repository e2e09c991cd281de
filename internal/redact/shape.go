package redact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
)

// ErrNoInput says that nothing could be read from the inputs.
var ErrNoInput = errors.New("no input could be read")

// SummaryName is the file the summary of a run is written to, at the top
// of the output.
const SummaryName = "REDACTION.txt"

// BundleOptions says how RedactBundle reads.
type BundleOptions struct {
	Walk bundle.Options // limits of the walk, as analyze has them
	// GzipLevel is the gzip level of what is written gzipped (default
	// gzip.BestSpeed).
	GzipLevel int
}

// RedactBundle reads the inputs as analyze does (bundle.Walk, with its
// limits and its rules for hostile entries) and writes their redaction to
// output in the same shape: a directory as a directory, an archive as an
// archive of the same format (nested ones too), a .gz file as a .gz file;
// file and entry names are redacted like contents. With several inputs,
// output is a directory holding one redacted copy of each. Everything is
// written under a temporary name beside output and renamed at the end;
// output must not exist. When no file could be read, nothing is written
// and the error is ErrNoInput (the summary says why).
//
// The inputs are walked twice: first for the host names their files' names
// and directories give and the user names of the audit logs (nothing else
// is read but what finding the files takes), so that a short host name or
// a user name met before its context is replaced too; then to redact.
//
// A bzip2 layer is written as gzip (there is no bzip2 writer in Go's
// standard library): its name's .bz2 becomes .gz, .tbz2 and .tbz .tgz.
func RedactBundle(ctx context.Context, r *Redactor, inputs []string, output string, opt BundleOptions) (*Summary, error) {
	if len(inputs) == 0 {
		return nil, errors.New("redact: no input")
	}
	if _, err := os.Lstat(output); err == nil {
		return nil, fmt.Errorf("output %s exists: name a new one", output)
	}
	if opt.GzipLevel == 0 {
		opt.GzipLevel = gzip.BestSpeed
	}
	sum := &Summary{}
	// pass 1: host names from file names and directories, user names from
	// the audit logs; a learner of its own keeps the counts of r for pass 2
	learner := New(r.m, r.opt)
	for _, in := range inputs {
		if _, err := bundle.Walk(ctx, []string{in}, opt.Walk, func(f bundle.File, rd io.Reader) error {
			learner.Learn(f.Host)
			if f.Kind == parsers.KindAudit {
				_, err := learner.Stream(io.Discard, rd)
				return err
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	dir, base := filepath.Split(filepath.Clean(output))
	if dir == "" {
		dir = "."
	}
	tmp, err := os.MkdirTemp(dir, "."+base+".redact-*")
	if err != nil {
		return nil, fmt.Errorf("create output: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	single := len(inputs) == 1
	var singleFile string // the one output file of a single file input
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			sum.problem(r, in, "input not readable: "+err.Error())
			continue
		}
		var target string // where this input's copy goes
		switch {
		case single && fi.IsDir():
			target = tmp
		case single:
			target = filepath.Join(tmp, outName(r, fi.Name(), nil))
			singleFile = target
		default:
			target = filepath.Join(tmp, outName(r, fi.Name(), nil))
		}
		w := &shapeWriter{r: r, sum: sum, opt: opt, root: target, isDir: fi.IsDir(), input: filepath.Clean(in), given: in}
		problems, werr := bundle.Walk(ctx, []string{in}, opt.Walk, w.file)
		for _, p := range problems {
			sum.problem(r, p.Path, p.Reason)
		}
		w.summaryInArchive = w.err == nil && single && !fi.IsDir()
		if cerr := w.closeAll(); w.err == nil {
			w.err = cerr
		}
		if w.err != nil {
			return nil, w.err
		}
		if werr != nil {
			return nil, werr
		}
		if w.wroteSummary {
			sum.inArchive = true
		}
	}
	if sum.Files == 0 {
		// nothing read: no output, the summary tells why
		return sum, fmt.Errorf("%w from %s: no output written", ErrNoInput, strings.Join(inputs, ", "))
	}
	text := sum.Text(r)
	switch {
	case singleFile != "":
		if !sum.inArchive {
			// a plain file: the summary goes beside it
			if err := os.WriteFile(output+"."+SummaryName, []byte(text), 0o644); err != nil {
				return nil, fmt.Errorf("write summary: %w", err)
			}
			sum.beside = output + "." + SummaryName
		}
		if err := os.Rename(singleFile, output); err != nil {
			return nil, fmt.Errorf("write output: %w", err)
		}
		os.RemoveAll(tmp)
	default:
		if err := os.WriteFile(filepath.Join(tmp, SummaryName), []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("write summary: %w", err)
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			return nil, fmt.Errorf("write output: %w", err)
		}
		if err := os.Rename(tmp, output); err != nil {
			return nil, fmt.Errorf("write output: %w", err)
		}
	}
	done = true
	return sum, nil
}

// outName redacts a file or entry name and renames what changes format.
func outName(r *Redactor, name string, comps []string) string {
	n := r.Name(name)
	for _, c := range comps {
		if c == "bzip2" {
			switch {
			case strings.HasSuffix(n, ".bz2"):
				n = strings.TrimSuffix(n, ".bz2") + ".gz"
			case strings.HasSuffix(n, ".tbz2"):
				n = strings.TrimSuffix(n, ".tbz2") + ".tgz"
			case strings.HasSuffix(n, ".tbz"):
				n = strings.TrimSuffix(n, ".tbz") + ".tgz"
			}
		}
	}
	return n
}

// level is one file of a chain: a file on disk or an archive entry, the
// compressions around its content, and the archive it is, if any.
type level struct {
	name    string   // path on disk relative to the input, or entry name
	comps   []string // compressions, outermost first
	archive string   // "tar", "zip" or "" for the file itself
}

func (l level) key() string { return l.name + "\x00" + strings.Join(l.comps, ",") + "\x00" + l.archive }

// levels splits a walked file into its chain.
func levels(rel string, layers []string) ([]level, error) {
	parts := strings.Split(rel, "!/")
	out := []level{{name: parts[0]}}
	for _, l := range layers {
		cur := &out[len(out)-1]
		switch l {
		case "tar", "zip":
			cur.archive = l
			if len(out) >= len(parts) {
				return nil, fmt.Errorf("path %q has fewer entries than its layers %v", rel, layers)
			}
			out = append(out, level{name: parts[len(out)]})
		default:
			cur.comps = append(cur.comps, l)
		}
	}
	if len(out) != len(parts) {
		return nil, fmt.Errorf("path %q does not match its layers %v", rel, layers)
	}
	return out, nil
}

// open is a level being written.
type open struct {
	key     string
	tar     *tar.Writer
	zip     *zip.Writer
	close   []func() error // run last first
	mod     time.Time
	content io.Writer // where the level's content goes, under its compressions
}

// shapeWriter writes the files of one input's walk.
type shapeWriter struct {
	r     *Redactor
	sum   *Summary
	opt   BundleOptions
	root  string // the input's copy: a directory, or the file
	isDir bool
	input string // the input, cleaned
	given string // the input as given
	open  []*open
	err   error // a write error: the run fails
	// summaryInArchive asks for the summary inside the top archive when it closes
	summaryInArchive bool
	wroteSummary     bool
}

func (w *shapeWriter) file(f bundle.File, rd io.Reader) error {
	if w.err != nil {
		return w.err
	}
	var rel string
	if w.isDir {
		// a directory input's display paths are filepath.Join(input, ...)
		p := f.Path
		if w.input != "." {
			p = strings.TrimPrefix(p, w.input+string(filepath.Separator))
		}
		rel = filepath.ToSlash(p)
	} else {
		// a file input's display path is the input as given, then "!/..."
		rest, ok := strings.CutPrefix(f.Path, w.given)
		if !ok {
			rest = strings.TrimPrefix(f.Path, w.input)
		}
		rel = filepath.Base(w.input) + rest
	}
	lv, err := levels(rel, f.Layers)
	if err != nil {
		return err // a Problem: the file is skipped
	}
	mod := f.ModTime
	if mod.IsZero() {
		mod = time.Unix(0, 0)
	}
	mod = mod.UTC().Truncate(time.Second)
	// keep the archives this file shares with the one before
	c := 0
	for c < len(w.open) && c < len(lv)-1 && w.open[c].key == lv[c].key() {
		c++
	}
	if err := w.closeFrom(c); err != nil {
		w.err = err
		return err
	}
	for k := c; k < len(lv); k++ {
		if err := w.push(lv[k], mod); err != nil {
			w.err = err
			return err
		}
	}
	leaf := w.open[len(w.open)-1]
	lines, err := w.r.Stream(writerOf(leaf), rd)
	w.sum.Files++
	w.sum.Lines += lines
	cerr := w.closeFrom(len(w.open) - 1)
	if err != nil {
		var we writeError
		if errors.As(err, &we) {
			w.err = err
		}
		return err
	}
	if cerr != nil {
		w.err = cerr
		return cerr
	}
	return nil
}

// writeError marks a failure to write the output.
type writeError struct{ err error }

func (e writeError) Error() string { return "write output: " + e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

// leafWriter is what a leaf's content is written to.
type leafWriter struct{ w io.Writer }

func (l leafWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if err != nil {
		return n, writeError{err}
	}
	return n, nil
}

func writerOf(o *open) io.Writer { return leafWriter{o.content} }

// push opens level l under the top of the stack.
func (w *shapeWriter) push(l level, mod time.Time) error {
	o := &open{key: l.key(), mod: mod}
	depth := len(w.open)
	var dest io.Writer
	if depth == 0 {
		p := w.root
		if w.isDir {
			var segs []string
			for _, s := range strings.Split(l.name, "/") {
				segs = append(segs, w.r.Name(s))
			}
			segs[len(segs)-1] = outName(w.r, path.Base(l.name), l.comps)
			p = filepath.Join(w.root, filepath.FromSlash(strings.Join(segs, "/")))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return writeError{err}
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return writeError{err}
		}
		dest = f
		o.close = append(o.close, f.Close)
	} else {
		parent := w.open[depth-1]
		var segs []string
		for _, s := range strings.Split(l.name, "/") {
			segs = append(segs, w.r.Name(s))
		}
		segs[len(segs)-1] = outName(w.r, path.Base(l.name), l.comps)
		name := strings.Join(segs, "/")
		switch {
		case parent.tar != nil:
			sp := &spill{dir: filepath.Dir(w.root)}
			dest = sp
			tw := parent.tar
			o.close = append(o.close, func() error {
				defer sp.release()
				hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: sp.n, Mode: 0o644, ModTime: mod, Format: tar.FormatPAX}
				if err := tw.WriteHeader(hdr); err != nil {
					return writeError{err}
				}
				if err := sp.copyTo(tw); err != nil {
					return writeError{err}
				}
				return nil
			})
		case parent.zip != nil:
			zw, err := parent.zip.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod})
			if err != nil {
				return writeError{err}
			}
			dest = zw
		default:
			return fmt.Errorf("redact: entry %s under a level that is no archive", l.name)
		}
	}
	cw := &countWriter{w: dest}
	out := io.Writer(cw)
	for _, c := range l.comps {
		zw, err := w.compressor(c, out)
		if err != nil {
			return writeError{err}
		}
		o.close = append(o.close, zw.Close)
		out = zw
	}
	switch l.archive {
	case "tar":
		tw := tar.NewWriter(out)
		o.tar = tw
		o.close = append(o.close, tw.Close)
	case "zip":
		zw := zip.NewWriter(out)
		o.zip = zw
		o.close = append(o.close, zw.Close)
	}
	o.content = out
	w.open = append(w.open, o)
	return nil
}

func (w *shapeWriter) compressor(c string, out io.Writer) (io.WriteCloser, error) {
	switch c {
	case "gzip", "bzip2":
		return gzip.NewWriterLevel(out, w.opt.GzipLevel)
	case "xz":
		return xz.NewWriter(out)
	case "zstd":
		return zstd.NewWriter(out, zstd.WithEncoderConcurrency(1))
	}
	return nil, fmt.Errorf("no writer for %s", c)
}

// closeFrom closes the levels from depth k up, deepest first.
func (w *shapeWriter) closeFrom(k int) error {
	var first error
	for len(w.open) > k {
		o := w.open[len(w.open)-1]
		if len(w.open) == 1 && w.summaryInArchive && (o.tar != nil || o.zip != nil) && first == nil {
			if err := w.writeSummaryEntry(o); err != nil {
				first = err
			}
		}
		for i := len(o.close) - 1; i >= 0; i-- {
			if err := o.close[i](); err != nil && first == nil {
				first = writeError{err}
			}
		}
		w.open = w.open[:len(w.open)-1]
	}
	return first
}

func (w *shapeWriter) closeAll() error { return w.closeFrom(0) }

// writeSummaryEntry adds the summary at the top of the archive o.
func (w *shapeWriter) writeSummaryEntry(o *open) error {
	text := []byte(w.sum.Text(w.r))
	w.wroteSummary = true
	w.sum.inArchive = true
	if o.tar != nil {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: SummaryName, Size: int64(len(text)), Mode: 0o644, ModTime: o.mod, Format: tar.FormatPAX}
		if err := o.tar.WriteHeader(hdr); err != nil {
			return writeError{err}
		}
		_, err := o.tar.Write(text)
		return err
	}
	zw, err := o.zip.CreateHeader(&zip.FileHeader{Name: SummaryName, Method: zip.Deflate, Modified: o.mod})
	if err != nil {
		return writeError{err}
	}
	_, err = zw.Write(text)
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// spill holds an archive entry until its size is known: in memory up to
// spillMemory, then in a temporary file (unlinked when released).
type spill struct {
	dir string
	buf bytes.Buffer
	f   *os.File
	n   int64
}

const spillMemory = 4 << 20

func (s *spill) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if s.f == nil && s.buf.Len()+len(p) <= spillMemory {
		return s.buf.Write(p)
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, ".ozdoctor-redact-spill-*")
		if err != nil {
			return 0, err
		}
		os.Remove(f.Name()) // unlinked at once: gone with the process
		s.f = f
		if _, err := s.buf.WriteTo(f); err != nil {
			return 0, err
		}
	}
	return s.f.Write(p)
}

func (s *spill) copyTo(w io.Writer) error {
	if s.f == nil {
		_, err := s.buf.WriteTo(w)
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.CopyBuffer(w, s.f, make([]byte, 256<<10))
	return err
}

func (s *spill) release() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.buf = bytes.Buffer{}
}
