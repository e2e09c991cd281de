package log4j

import (
	"errors"
	"io"
)

// errStarved is what a fed scanner's input returns once the lines given
// so far are consumed: not an end, a pause until the next Feed.
var errStarved = errors.New("log4j: fed input consumed")

// feedReader is the input of a fed Scanner: the bytes fed and not yet read.
type feedReader struct {
	buf   []byte
	off   int
	ended bool
	flush bool // Flush was asked: when the input is consumed, open records end
}

func (f *feedReader) Read(p []byte) (int, error) {
	if f.off == len(f.buf) {
		f.buf, f.off = f.buf[:0], 0
		if f.ended {
			return 0, io.EOF
		}
		return 0, errStarved
	}
	n := copy(p, f.buf[f.off:])
	f.off += n
	return n, nil
}

// feedBufferSize is the read buffer of a fed Scanner: a daemon keeps one
// per followed file, so it is smaller than a batch scanner's (longer lines
// take the slower path).
const feedBufferSize = 64 << 10

// NewFeeder returns a Scanner whose input is handed to it with Feed or
// FeedLine as it comes (a tailer's lines) rather than read from an
// io.Reader. Next returns the records that the input fed so far completes
// and then false, leaving the last record open: its continuation lines may
// come in a later Feed. Flush ends the open records (an idle timeout); End
// ends the input (the file was let go), after which Next returns the
// records still open and the scanner is done, as at the end of a file.
// Records, stats and line numbers are those a batch Scanner gives for the
// same bytes, as long as Flush is not called inside a record.
func NewFeeder(opt Options) *Scanner {
	f := &feedReader{}
	s := newScannerSize(f, opt, feedBufferSize)
	s.feed = f
	return s
}

// Feed hands the scanner complete lines: p ends with a newline (one is
// added otherwise, so that the last line is complete). p is copied.
func (s *Scanner) Feed(p []byte) {
	f := s.feed
	f.buf = append(f.buf, p...)
	if len(p) > 0 && p[len(p)-1] != '\n' {
		f.buf = append(f.buf, '\n')
	}
}

// FeedLine hands the scanner one line, without its newline.
func (s *Scanner) FeedLine(line []byte) {
	f := s.feed
	f.buf = append(f.buf, line...)
	f.buf = append(f.buf, '\n')
}

// Flush asks that the records open once the input fed so far is consumed
// end there: the next calls of Next return them. A continuation line fed
// afterwards is counted but folds into no record.
func (s *Scanner) Flush() { s.feed.flush = true }

// End ends the input: Next returns the records still open, then false for
// good.
func (s *Scanner) End() { s.feed.ended = true }

// OpenLine returns the line number of the first line of the oldest
// candidate record still open (0 if none): a caller that checkpoints a
// fed scanner's file restarts from that line, so that the record is read
// again whole rather than lost.
func (s *Scanner) OpenLine() int {
	line := 0
	for _, st := range s.streams {
		if st.cand && (line == 0 || st.rec.Line < line) {
			line = st.rec.Line
		}
	}
	return line
}
