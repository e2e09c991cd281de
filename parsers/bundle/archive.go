package bundle

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// visitGzip decompresses a gzip stream (all members) and visits its content.
func (w *walker) visitGzip(n node, br *bufio.Reader, depth int) {
	in := &countingByteReader{r: br}
	// A *bufio.Reader of its own lets the decoder take its fast path (it
	// reads byte by byte); in counts what it pulls, at most a buffer ahead.
	zbr := w.bufs.reader(in)
	defer w.bufs.putReader(zbr) // after zr is closed: defers run last first
	zr, err := w.bufs.gzipReader(zbr)
	if err != nil {
		w.report(n.path, gzipError(err))
		return
	}
	defer w.bufs.putGzip(zr) // after it is closed
	defer zr.Close()
	w.visitDecompressed(n, zr, in, "gzip", gzipError, depth)
}

// visitDecompressed visits the decompressed content zr of a stream whose
// compressed bytes in counts, under the ratio cap.
func (w *walker) visitDecompressed(n node, zr io.Reader, in *countingByteReader, format string, wrap func(error) error, depth int) {
	rr := &ratioReader{r: zr, in: func() int64 { return in.n }, max: w.opt.MaxRatio, what: format + " data of " + n.name, wrap: wrap}
	ahead := readAhead(rr, w.bufs)
	w.visitStream(n, ahead, nil, depth+1)
	ahead.Close()
	if rr.err != nil {
		w.report(n.path, rr.err) // when not reported by whoever read it
	}
}

// Memory a decompressor may take for its window, at most. Both are the
// largest the tools' own presets use: xz -9 (64 MiB dictionary) and
// zstd --ultra -22 or --long (128 MiB window). Larger streams are skipped
// (decompress them outside and name the result as an input).
const (
	maxXZDict     = 64 << 20
	maxZstdWindow = 128 << 20
)

// visitXZ decompresses an xz stream (all streams and padding) and visits its
// content. The xz reader allocates the dictionary its block header asks
// for, so the first block's is checked against maxXZDict first.
func (w *walker) visitXZ(n node, br *bufio.Reader, depth int) {
	head, _ := br.Peek(xzHeadBytes)
	if dict, ok := xzDictSize(head); ok && dict > maxXZDict {
		w.problem(n.path, fmt.Sprintf("xz stream with a %s dictionary skipped: more than the %s of xz -9 (decompress it with unxz and name the result as an input)", size(dict), size(maxXZDict)))
		return
	}
	in := &countingByteReader{r: br}
	wrap := decompressError("xz")
	zr, err := xz.ReaderConfig{}.NewReader(in)
	if err != nil {
		w.report(n.path, wrap(err))
		return
	}
	w.visitDecompressed(n, &xzEnd{r: zr, in: in}, in, "xz", wrap, depth)
}

// visitZstd decompresses a zstd stream (all frames) and visits its content.
func (w *walker) visitZstd(n node, br *bufio.Reader, depth int) {
	in := &countingByteReader{r: br}
	wrap := decompressError("zstd")
	zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderMaxMemory(maxZstdWindow))
	if err != nil {
		w.report(n.path, wrap(err))
		return
	}
	defer zr.Close()
	w.visitDecompressed(n, zr, in, "zstd", wrap, depth)
}

// visitBzip2 decompresses a bzip2 stream (all streams) and visits its
// content.
func (w *walker) visitBzip2(n node, br *bufio.Reader, depth int) {
	in := &countingByteReader{r: br}
	w.visitDecompressed(n, bzip2.NewReader(in), in, "bzip2", decompressError("bzip2"), depth)
}

// xzHeadBytes is enough of an xz file for its stream header and first
// block header (at most 1024 bytes).
const xzHeadBytes = 12 + 1024

// xzDictSize reads the LZMA2 dictionary size from the first block header
// of an xz stream (xz file format 1.0.4, sections 2.1.1, 3.1 and 5.3.1);
// ok is false when head holds no block header with an LZMA2 filter.
func xzDictSize(head []byte) (int64, bool) {
	if len(head) < 13 || head[12] == 0 { // no block: an index follows
		return 0, false
	}
	hdr := head[12:]
	hsize := (int(hdr[0]) + 1) * 4
	if len(hdr) < hsize || hsize < 8 {
		return 0, false
	}
	flags := hdr[1]
	p := hdr[2 : hsize-4] // without the CRC32
	varint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && len(p) > 0; i++ {
			b := p[0]
			p = p[1:]
			v |= uint64(b&0x7f) << (7 * i)
			if b < 0x80 {
				return v, true
			}
		}
		return 0, false
	}
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} { // compressed, uncompressed size
		if present {
			if _, ok := varint(); !ok {
				return 0, false
			}
		}
	}
	for range int(flags&0x03) + 1 {
		id, ok1 := varint()
		n, ok2 := varint()
		if !ok1 || !ok2 || uint64(len(p)) < n {
			return 0, false
		}
		props := p[:n]
		p = p[n:]
		if id == 0x21 && n == 1 {
			b := props[0] & 0x3f
			switch {
			case b > 40:
				return 0, false
			case b == 40:
				return 1<<32 - 1, true
			}
			return int64(2|b&1) << (b/2 + 11), true
		}
	}
	return 0, false
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
			child := node{path: ep, class: n.class + "!/" + name, name: path.Base(name), size: hdr.Size, mod: hdr.ModTime, rank: n.rank, layers: n.layers}
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
		child := node{path: ep, class: n.class + "!/" + name, name: path.Base(name), size: int64(zf.CompressedSize64), mod: zf.Modified, rank: n.rank, layers: n.layers}
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
	var ce kflate.CorruptInputError
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

// decompressError turns an xz, zstd or bzip2 read error into a reason a
// user can act on.
func decompressError(format string) func(error) error {
	return func(err error) error {
		var re *readError
		if errors.As(err, &re) {
			return re
		}
		msg := err.Error()
		lower := strings.ToLower(msg)
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF || strings.Contains(lower, "unexpected eof"):
			return &readError{reason: "truncated " + format + ": unexpected EOF (the part before it was read)"}
		case errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded):
			return &readError{reason: fmt.Sprintf("%s frame needs a window above %s (more than zstd --ultra -22 or --long use): stopped (decompress it with unzstd and name the result as an input)", format, size(maxZstdWindow))}
		case errors.Is(err, zstd.ErrCRCMismatch) || strings.Contains(lower, "checksum") || strings.Contains(lower, "crc"):
			return &readError{reason: format + " checksum mismatch: the file is corrupt (the part before it was read)"}
		}
		return &readError{reason: "corrupt " + format + " data (" + msg + "): the part before it was read"}
	}
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

// countingByteReader counts the compressed bytes a decompressor consumes
// and keeps the last two non-NUL ones (an xz file ends with "YZ" and NUL
// padding).
type countingByteReader struct {
	r    *bufio.Reader
	n    int64
	tail [2]byte
}

func (c *countingByteReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.keep(p[:n])
	return n, err
}

func (c *countingByteReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
		if b != 0 {
			c.tail = [2]byte{c.tail[1], b}
		}
	}
	return b, err
}

func (c *countingByteReader) keep(p []byte) {
	var last []byte
	for i := len(p) - 1; i >= 0 && len(last) < 2; i-- {
		if p[i] != 0 {
			last = append(last, p[i])
		}
	}
	switch len(last) {
	case 2:
		c.tail = [2]byte{last[1], last[0]}
	case 1:
		c.tail = [2]byte{c.tail[1], last[0]}
	}
}

// xzEnd turns the xz reader's clean end into a truncation when the input
// did not end with a stream footer ("YZ", then NUL padding): the reader
// takes a file cut right after a stream or block boundary for a whole one.
type xzEnd struct {
	r  io.Reader
	in *countingByteReader
}

func (x *xzEnd) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	if err == io.EOF && x.in.tail != [2]byte{'Y', 'Z'} {
		err = io.ErrUnexpectedEOF
	}
	return n, err
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
