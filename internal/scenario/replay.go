package scenario

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Replay writes the log files of a bundle rendered in LayoutFile into
// followed copies line by line, each once a clock passes its record's time,
// as the services would write them.
type Replay struct {
	mu    sync.Mutex
	dir   string
	files []*timedFile
}

// timedFile is one rendered log file and how much of it is written.
type timedFile struct {
	path  string // relative
	lines [][]byte
	times []time.Time // of each line; a continuation line has its record's
	next  int
}

var recordTime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}),(\d{3})`)

// NewReplay reads the .log files rendered under src and creates each of
// them empty under dir.
func NewReplay(src, dir string) (*Replay, error) {
	r := &Replay{dir: dir}
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".log") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		f := &timedFile{path: rel}
		var at time.Time
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if m := recordTime.FindSubmatch(line); m != nil {
				at, _ = time.Parse("2006-01-02 15:04:05.000", string(m[1])+"."+string(m[2]))
			}
			if len(line) > 0 {
				f.lines, f.times = append(f.lines, line), append(f.times, at)
			}
		}
		r.files = append(r.files, f)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), nil, 0o644)
	})
	return r, err
}

// Until appends to every file its lines logged before t; it returns how
// many lines it wrote.
func (r *Replay) Until(t time.Time) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	written := 0
	for _, f := range r.files {
		n := f.next
		for n < len(f.lines) && f.times[n].Before(t) {
			n++
		}
		if n == f.next {
			continue
		}
		fh, err := os.OpenFile(filepath.Join(r.dir, f.path), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return written, err
		}
		_, err = fh.Write(bytes.Join(f.lines[f.next:n], nil))
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return written, err
		}
		written += n - f.next
		f.next = n
	}
	return written, nil
}

// Run replays on the wall clock, every interval, until ctx ends or a write
// fails.
func (r *Replay) Run(ctx context.Context, every time.Duration) error {
	for {
		if _, err := r.Until(time.Now()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}
