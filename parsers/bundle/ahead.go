package bundle

import (
	"bufio"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Decompression runs on a goroutine of its own, a few chunks ahead of the
// reader: the scanner and the decompressor then use two cores. Each chunk
// handed over wakes the goroutine waiting for it: with 1 MiB chunks, a
// .tar.gz read alone on two cores took 6% less time than with 256 KiB
// (docs/benchmarks.md, fourteenth run).
const (
	aheadChunk  = 1 << 20
	aheadChunks = 4
)

// aheadReader reads r on a goroutine of its own into chunks that Read hands
// out in order, errors last. Close stops the goroutine and waits for it:
// only then may what r shares with the caller be looked at.
type aheadReader struct {
	pool   *buffers // where its chunks come from and go back to
	chunks chan chunk
	free   chan []byte
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	cur    chunk // being read
	used   []byte
}

type chunk struct {
	b   []byte
	err error // after b
}

func readAhead(r io.Reader, pool *buffers) *aheadReader {
	a := &aheadReader{pool: pool, chunks: make(chan chunk, aheadChunks), free: make(chan []byte, aheadChunks),
		stop: make(chan struct{}), done: make(chan struct{})}
	for range aheadChunks {
		a.free <- pool.chunk()
	}
	go a.fill(r)
	return a
}

func (a *aheadReader) fill(r io.Reader) {
	defer close(a.done)
	defer close(a.chunks)
	for {
		var b []byte
		select {
		case b = <-a.free:
		case <-a.stop:
			return
		}
		n := 0
		var err error
		for n < len(b) && err == nil {
			var m int
			m, err = r.Read(b[n:])
			n += m
		}
		select {
		case a.chunks <- chunk{b: b[:n], err: err}:
		case <-a.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (a *aheadReader) Read(p []byte) (int, error) {
	for len(a.cur.b) == 0 {
		if a.cur.err != nil {
			return 0, a.cur.err
		}
		if a.used != nil {
			a.free <- a.used[:cap(a.used)]
		}
		c, ok := <-a.chunks
		if !ok {
			return 0, io.EOF // stopped
		}
		a.cur, a.used = c, c.b
	}
	n := copy(p, a.cur.b)
	a.cur.b = a.cur.b[n:]
	if len(a.cur.b) == 0 && a.cur.err != nil {
		return n, a.cur.err
	}
	return n, nil
}

// Close stops reading ahead, waits for the goroutine to end and gives the
// chunks back.
func (a *aheadReader) Close() {
	a.once.Do(func() {
		close(a.stop)
		<-a.done
		for c := range a.chunks { // closed by fill
			a.pool.putChunk(c.b)
		}
		for len(a.free) > 0 {
			a.pool.putChunk(<-a.free)
		}
		if a.used != nil {
			a.pool.putChunk(a.used)
		}
		a.cur, a.used = chunk{}, nil
	})
}

// buffers are a walk's read buffers, reused from file to file: a bundle
// may hold tens of thousands of files, each read through a 64 KiB buffer
// and, when compressed, 4 MiB of chunks read ahead and (gzip) a
// decompressor with its 32 KiB window. A nil *buffers makes new ones.
type buffers struct {
	readers sync.Pool // *bufio.Reader of readBuffer bytes
	chunks  sync.Pool // *[aheadChunk]byte
	gzips   sync.Pool // *gzip.Reader
}

// gzipReader returns a reader of the gzip stream r.
func (p *buffers) gzipReader(r io.Reader) (*gzip.Reader, error) {
	if p != nil {
		if zr, ok := p.gzips.Get().(*gzip.Reader); ok {
			if err := zr.Reset(r); err != nil {
				p.gzips.Put(zr)
				return nil, err
			}
			return zr, nil
		}
	}
	return gzip.NewReader(r)
}

// putGzip gives zr back, closed: nothing may read it any more.
func (p *buffers) putGzip(zr *gzip.Reader) {
	if p != nil {
		p.gzips.Put(zr)
	}
}

func (p *buffers) reader(r io.Reader) *bufio.Reader {
	if p != nil {
		if br, ok := p.readers.Get().(*bufio.Reader); ok {
			br.Reset(r)
			return br
		}
	}
	return bufio.NewReaderSize(r, readBuffer)
}

// putReader gives br back: nothing may read it any more.
func (p *buffers) putReader(br *bufio.Reader) {
	if p != nil {
		br.Reset(nil)
		p.readers.Put(br)
	}
}

func (p *buffers) chunk() []byte {
	if p != nil {
		if b, ok := p.chunks.Get().(*[aheadChunk]byte); ok {
			return b[:]
		}
	}
	return make([]byte, aheadChunk)
}

func (p *buffers) putChunk(b []byte) {
	if p != nil && cap(b) == aheadChunk {
		p.chunks.Put((*[aheadChunk]byte)(b[:aheadChunk]))
	}
}
