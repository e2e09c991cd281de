package bundle

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// visitGzip decompresses a gzip stream (all members) and visits its content.
func (w *walker) visitGzip(n node, br *bufio.Reader, depth int) {
	in := &countingByteReader{r: br}
	zr, err := gzip.NewReader(in)
	if err != nil {
		w.report(n.path, gzipError(err))
		return
	}
	defer zr.Close()
	rr := &ratioReader{r: zr, in: func() int64 { return in.n }, max: w.opt.MaxRatio, what: "gzip data of " + n.name, wrap: gzipError}
	w.visitStream(n, rr, nil, depth+1)
	if rr.err != nil {
		w.report(n.path, rr.err) // when not reported by whoever read it
	}
}

// visitTar visits the regular files of a tar stream.
func (w *walker) visitTar(n node, br *bufio.Reader, depth int) {
	tr := tar.NewReader(br)
	for !w.done() {
		hdr, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			w.report(n.path, archiveError("tar archive", err))
			return
		}
		ep := n.path + "!/" + hdr.Name
		name, why := entryName(hdr.Name)
		if why != "" {
			w.problem(ep, why)
			continue
		}
		ep = n.path + "!/" + name
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeGNUSparse:
			child := node{path: ep, class: n.class + "!/" + name, name: path.Base(name), size: hdr.Size, mod: hdr.ModTime}
			er := &entryReader{r: tr}
			w.visitStream(child, er, nil, depth+1)
			if er.err != nil { // the archive cannot be read further
				w.report(ep, er.err)
				return
			}
		case tar.TypeDir:
		case tar.TypeSymlink:
			w.problem(ep, fmt.Sprintf("symbolic link entry (to %q) skipped: links in archives are not followed", hdr.Linkname))
		case tar.TypeLink:
			w.problem(ep, fmt.Sprintf("hard link entry (to %q) skipped: links in archives are not followed; the target is read under its own name", hdr.Linkname))
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			w.problem(ep, "device or named pipe entry skipped: not a regular file")
		default:
			w.problem(ep, fmt.Sprintf("tar entry of type %q skipped: not a regular file", hdr.Typeflag))
		}
	}
}

// visitZip visits the regular files of a zip archive. A zip that is not a
// whole file on disk is read into memory first (zip needs random access).
func (w *walker) visitZip(n node, br *bufio.Reader, ra *sizedReaderAt, depth int) {
	if ra == nil {
		limit := min(int64(maxZipInMemory), w.opt.MaxFileBytes)
		buf, err := io.ReadAll(io.LimitReader(br, limit+1))
		if err != nil {
			w.report(n.path, err)
			return
		}
		if int64(len(buf)) > limit {
			w.problem(n.path, fmt.Sprintf("zip archive inside an archive or gzip file is larger than %s: skipped (extract it and name it as an input)", size(limit)))
			return
		}
		ra = &sizedReaderAt{r: bytes.NewReader(buf), size: int64(len(buf))}
	}
	cra := &countingReaderAt{r: ra.r}
	zr, err := zip.NewReader(cra, ra.size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		w.problem(n.path, "unreadable zip archive ("+err.Error()+"): skipped")
		return
	}
	for _, zf := range zr.File {
		if w.done() {
			return
		}
		ep := n.path + "!/" + zf.Name
		name, why := entryName(strings.ReplaceAll(zf.Name, `\`, "/"))
		if why != "" {
			w.problem(ep, why)
			continue
		}
		ep = n.path + "!/" + name
		mode := zf.Mode()
		switch {
		case mode.IsDir() || strings.HasSuffix(zf.Name, "/"):
			continue
		case mode&fs.ModeSymlink != 0:
			w.problem(ep, "symbolic link entry skipped: links in archives are not followed")
			continue
		case !mode.IsRegular():
			w.problem(ep, "zip entry skipped: not a regular file ("+mode.String()+")")
			continue
		case zf.Flags&0x1 != 0:
			w.problem(ep, "encrypted zip entry skipped: decrypt the archive first")
			continue
		}
		cra.n = 0
		rc, err := zf.Open()
		if err != nil {
			if errors.Is(err, zip.ErrAlgorithm) {
				w.problem(ep, fmt.Sprintf("zip entry compressed with method %d (%s), which is not supported: skipped (repack it with deflate)", zf.Method, zipMethod(zf.Method)))
			} else {
				w.problem(ep, "unreadable zip entry ("+err.Error()+"): skipped")
			}
			continue
		}
		child := node{path: ep, class: n.class + "!/" + name, name: path.Base(name), size: int64(zf.CompressedSize64), mod: zf.Modified}
		rr := &ratioReader{r: rc, in: func() int64 { return cra.n }, max: w.opt.MaxRatio, what: "zip member " + name, wrap: zipError}
		w.visitStream(child, rr, nil, depth+1)
		rc.Close()
		if rr.err != nil {
			w.report(ep, rr.err)
		}
	}
}

// entryName checks an archive entry name and returns it cleaned, or why it
// is refused.
func entryName(name string) (string, string) {
	if name == "" {
		return "", "entry with an empty name skipped"
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) ||
		(len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z')) {
		return "", "entry with an absolute path skipped: it would escape the archive"
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", `entry with ".." in its path skipped: it would escape the archive`
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", "entry with an empty name skipped"
	}
	return clean, ""
}

func zipMethod(m uint16) string {
	switch m {
	case 9:
		return "deflate64"
	case 12:
		return "bzip2"
	case 14:
		return "lzma"
	case 93:
		return "zstd"
	case 95:
		return "xz"
	case 99:
		return "AES encryption"
	}
	return "unknown"
}

// ratioReader reads a decompressed stream and stops it, with a Problem,
// once it is more than max times larger than the compressed bytes consumed
// (past ratioFloor). Errors are translated by wrap and stay sticky.
type ratioReader struct {
	r    io.Reader
	in   func() int64 // compressed bytes consumed so far
	out  int64
	max  int64
	what string
	wrap func(error) error
	err  error
}

func (g *ratioReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.out += int64(n)
	if g.out > ratioFloor && g.out/max(g.in(), 1) > g.max {
		g.err = &readError{reason: fmt.Sprintf("%s decompresses to more than %d times its compressed size (possible decompression bomb): stopped after %s (raise the ratio limit if the file is genuine)",
			g.what, g.max, size(g.out))}
		return n, g.err
	}
	if err != nil && err != io.EOF {
		g.err = g.wrap(err)
		return n, g.err
	}
	return n, err
}

// gzipError turns a gzip/flate error into a reason a user can act on.
func gzipError(err error) error {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		return &readError{reason: "truncated gzip: unexpected EOF (the part before it was read)"}
	case errors.Is(err, gzip.ErrChecksum):
		return &readError{reason: "gzip checksum mismatch: the file is corrupt (the part before it was read)"}
	case errors.Is(err, gzip.ErrHeader):
		return &readError{reason: "invalid gzip header: the file is corrupt or has trailing garbage (the part before it was read)"}
	case errors.As(err, &ce):
		return &readError{reason: fmt.Sprintf("corrupt gzip data at compressed byte %d (the part before it was read)", int64(ce))}
	}
	var re *readError
	if errors.As(err, &re) {
		return re
	}
	return &readError{reason: "read error in gzip file: " + err.Error()}
}

// zipError turns a zip member read error into a reason.
func zipError(err error) error {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, zip.ErrChecksum):
		return &readError{reason: "zip member checksum mismatch: the archive is corrupt (the part before it was read)"}
	case errors.Is(err, zip.ErrFormat):
		return &readError{reason: "zip member is corrupt (size does not match its header; the part before it was read)"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &readError{reason: "truncated zip member: unexpected EOF (the part before it was read)"}
	case errors.As(err, &ce):
		return &readError{reason: fmt.Sprintf("corrupt deflate data in zip member at compressed byte %d (the part before it was read)", int64(ce))}
	}
	var re *readError
	if errors.As(err, &re) {
		return re
	}
	return &readError{reason: "read error in zip member: " + err.Error()}
}

// archiveError explains why reading an archive stopped.
func archiveError(what string, err error) error {
	var re *readError
	if errors.As(err, &re) {
		return re
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &readError{reason: "truncated " + what + ": unexpected EOF (entries before it were read)"}
	}
	return &readError{reason: "cannot read further in the " + what + " (" + err.Error() + "): entries before it were read"}
}

// entryReader reads a tar entry and turns its first read error into a
// readError, so that it is reported once.
type entryReader struct {
	r   io.Reader
	err error
}

func (e *entryReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = archiveError("tar archive", err)
		return n, e.err
	}
	return n, err
}

// countingByteReader counts the compressed bytes a decompressor consumes.
type countingByteReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingByteReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingByteReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// countingReaderAt counts the bytes a zip member's reader fetches.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

type sizedReaderAt struct {
	r    io.ReaderAt
	size int64
}
