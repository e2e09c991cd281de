// Package log4j reads Ozone log files written by log4j/log4j2 layouts into
// records: it detects each file's layout (L1..L10 of shared/ozone/layouts.md)
// from its first records, decodes the header of every record's first line,
// strips docker-compose and Docker Desktop prefixes and folds continuation
// lines (stack traces, banners, protobuf and XML bodies) into their record.
//
// The scanner is built for throughput: lines are read in place from a large
// buffer, timestamps are decoded by hand, and a record's strings are built
// only when the caller's Candidate filter accepts its first line. Lines of
// records the filter rejects cost little more than finding their end.
package log4j

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"slices"
	"time"
	"unicode"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Options configure a Scanner. The zero value is usable.
type Options struct {
	// Location is the zone of the log's timestamps; nil means UTC.
	Location *time.Location
	// MaxLineBytes truncates longer physical lines (the rest of the line is
	// skipped and the line counted in Stats.Truncated); default 1 MiB.
	MaxLineBytes int
	// MaxRecordBytes caps a candidate record's folded message (counted in
	// Stats.TruncatedRecords); default 1 MiB.
	MaxRecordBytes int
	// Candidate filters records on their logger as logged (nil when the
	// layout has none) and the message part of their first line; it is
	// called exactly once per record. nil accepts every record.
	Candidate func(logger, firstLine []byte) bool
	// GapThreshold lists silences of at least this length between
	// consecutive records of one stream in Stats.Gaps; 0 turns gaps off.
	GapThreshold time.Duration
	// LineOffset is the number of lines before the input, when a file is
	// read from part-way (a tailer resuming): record line numbers count on
	// from it.
	LineOffset int
	// ByteOffset is the number of bytes before the input, likewise: record
	// offsets count on from it.
	ByteOffset int64
	// Kind is the file kind guessed from its name: KindOut makes each line
	// that is not a layout line its own untimed record; KindAudit and
	// KindContainer pick L7 and L8 for "| LEVEL |" lines.
	Kind parsers.Kind
}

// Stats describe what a Scanner read. Every physical line is counted once as
// a record's first line (Records), a continuation line (Continuations) or a
// line belonging to no record (Unparsed); Binary lines are Unparsed lines
// that hold NUL bytes or mostly invalid UTF-8.
type Stats struct {
	Layout           string // detected layout ("L1".."L10", "L3b"), "" if none
	Lines            int64
	Records          int64
	Candidates       int64 // records the Candidate filter accepted (returned by Next)
	Continuations    int64
	Unparsed         int64
	Truncated        int64 // physical lines cut at MaxLineBytes
	TruncatedRecords int64 // candidate messages cut at MaxRecordBytes
	Binary           int64
	// Damaged lines (also Unparsed) look hand-edited: a timestamp with an
	// impossible field, or an elision such as "..." in place of lines. They
	// end the record before them instead of being folded into it.
	Damaged      int64
	DamagedLines []int     // the first few damaged lines' numbers
	First, Last  time.Time // earliest and latest event time of all records
	Gaps         []Gap     // at most maxGaps kept, in the order found
	GapsDropped  int64     // gaps forgotten to keep maxGaps, the shortest first
	// Services holds per-service figures of a docker-compose capture (nil
	// for other files).
	Services map[string]ServiceStats
}

// ServiceStats are the figures of one docker-compose service.
type ServiceStats struct {
	Records     int64
	First, Last time.Time
}

// Gap is a silence between two consecutive records of one stream.
type Gap struct {
	Service  string // compose service, "" for plain files
	From, To time.Time
	Line     int // line of the record that ends the silence
}

const (
	defaultMaxLine   = 1 << 20
	defaultMaxRecord = 1 << 20
	readBufferSize   = 1 << 20
	sniffRecords     = 64   // records whose layouts are voted on
	maxGaps          = 1000 // gaps kept in Stats.Gaps (see ForgetGaps)
	maxStreams       = 1024 // compose services tracked separately
	maxInterned      = 8192 // distinct logger and thread names kept
	keepMsgCap       = 64 << 10
)

// stream is one sequence of records folded independently: the whole file, or
// one docker-compose service of a capture.
type stream struct {
	name      string
	open      bool // a record is open: continuation lines fold into it
	openTimed bool // the open record has a timestamp (a layout line, not a raw .out line)
	cand      bool // the open record is a candidate being built in rec and msg
	pipes     bool
	capped    bool
	rec       parsers.Record
	msg       []byte

	hasLast      bool
	lastMs       int64
	records      int64
	timed        bool
	minMs, maxMs int64
}

// Scanner reads records from a log file. Use Next to advance, Record to read
// the current record, and Err and Stats once Next returned false.
type Scanner struct {
	br        *bufio.Reader
	opt       Options
	maxLine   int
	maxRecord int
	zone      zoner
	long      []byte
	done      bool
	err       error
	lineNo    int
	read      int64 // bytes read from the reader
	lineStart int64 // offset of the current line's first byte

	streams []*stream // streams[0] is the file's own (unprefixed) stream
	byName  map[string]int
	cur     *stream

	compose, desktop, desktopFirst bool
	cri                            bool   // lines carry a CRI prefix (criPrefix)
	criPart                        []byte // the start of a line the runtime split (P), awaiting its rest

	untimed bool     // Options.Kind is KindOut: lines of no layout are records
	hint    layoutID // L7/L8 from Options.Kind
	pref    layoutID // layout with most votes among the sniffed records
	pipe    layoutID // L7 or L8 when known
	sniffed int
	votes   [layoutCount]int

	intern map[string]string
	h      header
	out    parsers.Record

	flushing bool
	flush    []*stream

	feed    *feedReader // the input of a scanner made by NewFeeder
	starved bool        // the fed input is consumed

	gapMs        int64 // GapThreshold in whole milliseconds, rounded up; 0 = off
	st           Stats
	hasTime      bool
	minMs, maxMs int64
}

// NewScanner returns a Scanner reading r.
func NewScanner(r io.Reader, opt Options) *Scanner {
	return newScannerSize(r, opt, readBufferSize)
}

// newScannerSize returns a Scanner reading r through a buffer of size bytes
// (lines longer than the buffer take the slower readLong path).
func newScannerSize(r io.Reader, opt Options, size int) *Scanner {
	return newScannerReader(bufio.NewReaderSize(r, size), opt)
}

// Reset makes s read r with opt as a new Scanner would, reusing its read
// buffer, its record buffer and the logger and thread names it interned: a
// run over thousands of files then allocates them once, not once per file.
func (s *Scanner) Reset(r io.Reader, opt Options) {
	s.br.Reset(r)
	s.init(s.br, opt)
}

func newScannerReader(br *bufio.Reader, opt Options) *Scanner {
	s := &Scanner{}
	s.init(br, opt)
	return s
}

// init makes s read br with opt from its first line. Of what s read before
// it keeps only buffers and interned names, never a record or a figure.
func (s *Scanner) init(br *bufio.Reader, opt Options) {
	var own *stream
	if len(s.streams) > 0 {
		own = s.streams[0]
		*own = stream{msg: own.msg[:0]}
		clear(s.streams)
	} else {
		own = &stream{}
	}
	intern := s.intern
	if intern == nil {
		intern = map[string]string{}
	}
	clear(s.flush)
	*s = Scanner{
		br:        br,
		opt:       opt,
		maxLine:   opt.MaxLineBytes,
		maxRecord: opt.MaxRecordBytes,
		zone:      newZoner(opt.Location),
		streams:   append(s.streams[:0], own),
		intern:    intern,
		flush:     s.flush[:0],
		st:        Stats{Gaps: s.st.Gaps[:0]}, // Gaps is the scanner's own
	}
	if s.maxLine <= 0 {
		s.maxLine = defaultMaxLine
	}
	if s.maxRecord <= 0 {
		s.maxRecord = defaultMaxRecord
	}
	switch opt.Kind {
	case parsers.KindOut:
		s.untimed = true
	case parsers.KindAudit:
		s.hint = layoutL7
	case parsers.KindContainer:
		s.hint = layoutL8
	}
	s.pipe = s.hint
	s.lineNo = max(opt.LineOffset, 0)
	s.read = max(opt.ByteOffset, 0)
	if opt.GapThreshold > 0 {
		s.gapMs = int64((opt.GapThreshold + time.Millisecond - 1) / time.Millisecond)
	}
}

// Next advances to the next candidate record. Records the Candidate filter
// rejects are only counted. Within one stream (the file, or one compose
// service) records come in file order; a compose capture's records of
// different services come in the order they complete.
func (s *Scanner) Next() bool {
	for !s.flushing {
		line, ok := s.readLine()
		if !ok && s.starved { // fed input consumed: wait for more, or flush
			s.starved = false
			if !s.feed.flush {
				return false
			}
			s.feed.flush = false
			s.beginFlush()
			break
		}
		if !ok && len(s.criPart) > 0 { // the file ends inside a split line
			line, ok, s.criPart = s.criPart, true, nil
			s.st.Continuations-- // counted when its first part came; now it is a line of its own
		}
		if !ok {
			s.beginFlush()
			break
		}
		if s.process(line) {
			return true
		}
	}
	if len(s.flush) == 0 {
		if s.feed != nil && !s.done {
			s.flushing = false // a fed scanner flushed on request reads on
		}
		return false
	}
	st := s.flush[0]
	s.flush = s.flush[1:]
	s.finish(st)
	return true
}

// Record returns the current record; it is valid until the next call of
// Next. Host, Component and Origin.File are left for the caller to fill.
func (s *Scanner) Record() *parsers.Record { return &s.out }

// Err returns the first I/O error met; parse problems are never errors.
func (s *Scanner) Err() error { return s.err }

// Gaps returns the silences found so far, in the order found; the slice is
// the scanner's own: read it before the next call to Next.
func (s *Scanner) Gaps() []Gap { return s.st.Gaps }

// ForgetGaps drops the first n silences of Gaps, which its caller has
// handed on: the limit of maxGaps then bounds those kept, not those found.
func (s *Scanner) ForgetGaps(n int) {
	if n > 0 {
		s.st.Gaps = append(s.st.Gaps[:0], s.st.Gaps[n:]...)
	}
}

// Stats returns what the scanner has read so far.
func (s *Scanner) Stats() Stats {
	st := s.st
	st.Layout = s.pref.String()
	if s.hasTime {
		st.First, st.Last = s.zone.time(s.minMs), s.zone.time(s.maxMs)
	}
	st.Gaps = append([]Gap(nil), s.st.Gaps...)
	if s.compose {
		st.Services = map[string]ServiceStats{}
		for _, x := range s.streams[1:] {
			ss := ServiceStats{Records: x.records}
			if x.timed {
				ss.First, ss.Last = s.zone.time(x.minMs), s.zone.time(x.maxMs)
			}
			st.Services[x.name] = ss
		}
	}
	return st
}

// readLine returns the next physical line without its end of line (LF or
// CRLF), cut at maxLine. The slice is valid until the next read.
func (s *Scanner) readLine() ([]byte, bool) {
	if s.done {
		return nil, false
	}
	s.lineStart = s.read
	b, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return s.readLong(b), true
	}
	if err != nil {
		if err == errStarved { // a fed scanner has consumed what it was given
			if len(b) == 0 {
				s.starved = true
				return nil, false
			}
		} else {
			s.done = true
			if err != io.EOF {
				s.err = err
			}
		}
		if len(b) == 0 {
			return nil, false
		}
	}
	s.read += int64(len(b))
	s.lineNo++
	s.st.Lines++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) > s.maxLine {
		b = b[:s.maxLine]
		s.st.Truncated++
	}
	return b, true
}

// readLong reads a line longer than the read buffer: it keeps its first
// maxLine bytes and skips the rest chunk by chunk.
func (s *Scanner) readLong(first []byte) []byte {
	s.lineNo++
	s.st.Lines++
	s.long = append(s.long[:0], first[:min(len(first), s.maxLine)]...)
	total := len(first)
	s.read += int64(len(first))
	last := first[len(first)-1]
	for {
		b, err := s.br.ReadSlice('\n')
		s.read += int64(len(b))
		chunk := b
		if err == nil {
			chunk = b[:len(b)-1]
		}
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
		total += len(chunk)
		if room := s.maxLine - len(s.long); room > 0 {
			s.long = append(s.long, chunk[:min(room, len(chunk))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != errStarved {
			s.done = true
			if err != io.EOF {
				s.err = err
			}
		}
		break
	}
	if last == '\r' {
		total--
		if total < len(s.long) {
			s.long = s.long[:total]
		}
	}
	if total > s.maxLine {
		s.st.Truncated++
	}
	return s.long
}

// stripKnown removes the prefixes this file is known to carry.
func (s *Scanner) stripKnown(line []byte) (content, service []byte) {
	if s.desktop && s.desktopFirst {
		if m := desktopPrefix(line); m > 0 {
			line = line[m:]
		}
	}
	if s.compose {
		if n, name := composePrefix(line); n > 0 {
			line, service = line[n:], name
		}
	}
	if s.desktop && !s.desktopFirst {
		if m := desktopPrefix(line); m > 0 {
			line = line[m:]
		}
	}
	return line, service
}

// detectPrefixed looks for a record header behind a compose prefix, a Docker
// Desktop timestamp or both, and remembers the prefixes found. (CRI
// prefixes of Kubernetes container log files are found and stripped by
// process before.)
func (s *Scanner) detectPrefixed(line []byte, h *header) (content, service []byte, ok bool) {
	if n, name := composePrefix(line); n > 0 {
		c := line[n:]
		if decode(c, s.pipe, h) {
			s.compose = true
			return c, name, true
		}
		if m := desktopPrefix(c); m > 0 && decode(c[m:], s.pipe, h) {
			s.compose, s.desktop, s.desktopFirst = true, true, false
			return c[m:], name, true
		}
	}
	if m := desktopPrefix(line); m > 0 {
		c := line[m:]
		if decode(c, s.pipe, h) {
			if !s.desktop {
				s.desktop, s.desktopFirst = true, true
			}
			return c, nil, true
		}
		if n, name := composePrefix(c); n > 0 && decode(c[n:], s.pipe, h) {
			s.compose, s.desktop, s.desktopFirst = true, true, true
			return c[n:], name, true
		}
	}
	return nil, nil, false
}

// process handles one line and reports whether it completed a candidate
// record (now in s.out).
func (s *Scanner) process(line []byte) bool {
	if !s.cri && len(line) > 28 && line[10] == 'T' { // the shape of a CRI prefix's time
		n, _ := criPrefix(line)
		s.cri = n > 0
	}
	if s.cri {
		var whole bool
		if line, whole = s.criLine(line); !whole {
			return false
		}
	}
	h := &s.h
	content, service := s.stripKnown(line)
	ok := decode(content, s.pipe, h)
	if !ok {
		if c, name, found := s.detectPrefixed(line, h); found {
			content, service, ok = c, name, true
		} else {
			ok = decodeGeneric(content, s.pref, h)
		}
	}
	st := s.streamFor(service)
	if ok {
		return s.start(st, h)
	}
	if isBinary(content) {
		s.st.Binary++
		s.st.Unparsed++
		return false
	}
	if s.untimed && !(st.open && (continuationShape(content) || st.openTimed && exceptionShape(content))) && len(content) > 0 {
		*h = header{msg: content}
		return s.start(st, h)
	}
	if damaged(content) {
		s.st.Unparsed++
		s.st.Damaged++
		if len(s.st.DamagedLines) < maxDamagedLines {
			s.st.DamagedLines = append(s.st.DamagedLines, s.lineNo)
		}
		emitted := st.cand
		if emitted {
			s.finish(st)
		}
		st.open = false
		return emitted
	}
	if !st.open {
		s.st.Unparsed++
		return false
	}
	s.st.Continuations++
	if st.cand {
		s.appendLine(st, content)
	}
	return false
}

// criLine strips the CRI prefix of a line and joins the parts of a line
// the runtime split: it returns false for a partial (P) line, which is kept
// and counted as a continuation, and the whole line with the last part.
func (s *Scanner) criLine(line []byte) ([]byte, bool) {
	n, partial := criPrefix(line)
	if n == 0 {
		return line, true
	}
	line = line[n:]
	if !partial && len(s.criPart) == 0 {
		return line, true
	}
	if room := s.maxLine - len(s.criPart); len(line) > room {
		line = line[:max(room, 0)]
	}
	s.criPart = append(s.criPart, line...)
	if partial {
		s.st.Continuations++
		return nil, false
	}
	line, s.criPart = s.criPart, s.criPart[:0]
	return line, true
}

// continuationShape reports whether a line of a .out file looks like the
// continuation of a Java stack trace rather than a line of its own.
func continuationShape(b []byte) bool {
	if len(b) == 0 || b[0] == ' ' || b[0] == '\t' {
		return true
	}
	return hasPrefix(b, "Caused by:") || hasPrefix(b, "... ")
}

// maxDamagedLines bounds Stats.DamagedLines.
const maxDamagedLines = 5

// damaged reports whether a line that is no record's first line looks like a
// hand-edited or damaged one rather than a continuation: it starts with the
// shape of a timestamp that has an impossible field ("2026-13-40 25:61:00"),
// or it is an elision marker standing for left-out lines.
func damaged(b []byte) bool {
	if stampShape(b) {
		_, _, kind := parseStamp(b)
		return kind == stampNone
	}
	t := bytes.TrimSpace(b)
	switch string(t) {
	case "...", "…", "[...]", "[…]", "(...)", "<...>", "<snip>", "[snip]":
		return true
	}
	return len(t) >= 4 && len(bytes.Trim(t, ".")) == 0
}

// stampShape reports whether b starts with digits and separators laid out as
// a "yyyy-MM-dd HH:mm:ss" or "yy/MM/dd HH:mm:ss" timestamp, whatever their values.
func stampShape(b []byte) bool {
	var shape string
	switch {
	case len(b) >= 19 && b[4] == '-':
		shape = "dddd-dd-dd dd:dd:dd"
	case len(b) >= 17 && b[2] == '/':
		shape = "dd/dd/dd dd:dd:dd"
	default:
		return false
	}
	for i := range len(shape) {
		switch c := shape[i]; {
		case c == 'd' && (b[i] < '0' || b[i] > '9'):
			return false
		case c == ' ' && b[i] != ' ' && b[i] != 'T':
			return false
		case c != 'd' && c != ' ' && b[i] != c:
			return false
		}
	}
	return true
}

// exceptionShape reports whether a line is part of a Java stack trace that
// log4j prints unindented under a record's message: the exception's first
// line, a qualified class name ending in Exception, Error or Throwable, then
// ": " and its message or nothing ("java.io.IOException: Connection reset"),
// or a frame printed without its tab ("at a.B.c(B.java:12)").
func exceptionShape(b []byte) bool {
	if hasPrefix(b, "at ") && len(b) > 0 && b[len(b)-1] == ')' {
		return true
	}
	name := b
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		name = b[:i]
	}
	dot := bytes.LastIndexByte(name, '.')
	if dot <= 0 || bytes.IndexFunc(name, func(r rune) bool {
		return r != '.' && r != '$' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) >= 0 {
		return false
	}
	class := name[dot+1:]
	return bytes.HasSuffix(class, []byte("Exception")) || bytes.HasSuffix(class, []byte("Error")) || bytes.HasSuffix(class, []byte("Throwable"))
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// streamFor returns the stream of a compose service (nil: the file's own).
func (s *Scanner) streamFor(name []byte) *stream {
	if name == nil {
		return s.streams[0]
	}
	if c := s.cur; c != nil && c.name == string(name) {
		return c
	}
	if i, ok := s.byName[string(name)]; ok {
		s.cur = s.streams[i]
		return s.cur
	}
	if len(s.streams) >= maxStreams {
		return s.streams[0]
	}
	if s.byName == nil {
		s.byName = map[string]int{}
	}
	st := &stream{name: string(name)}
	s.byName[st.name] = len(s.streams)
	s.streams = append(s.streams, st)
	s.cur = st
	return st
}

// start opens a new record in st from its decoded first line; it completes
// the stream's previous record first and reports whether that one was a
// candidate (now in s.out).
func (s *Scanner) start(st *stream, h *header) bool {
	emitted := false
	if st.cand {
		s.finish(st)
		emitted = true
	}
	s.st.Records++
	st.open, st.openTimed = true, h.timed
	st.records++
	var ms int64
	if h.timed {
		ms = s.zone.toUTC(h.wall)
		s.noteTime(st, ms)
		if h.layout != layoutNone && s.sniffed < sniffRecords {
			s.vote(h.layout)
		}
	}
	st.cand = s.opt.Candidate == nil || s.opt.Candidate(h.logger, h.msg)
	if !st.cand {
		return emitted
	}
	s.st.Candidates++
	r := &st.rec
	r.Time = time.Time{}
	if h.timed {
		r.Time = s.zone.time(ms)
	}
	r.Level = h.level
	r.Logger = s.internBytes(h.logger)
	r.Thread = s.internBytes(h.thread)
	r.Service = st.name
	r.Line, r.Offset = s.lineNo, s.lineStart
	st.pipes, st.capped = h.pipes, false
	msg := h.msg
	if len(msg) > s.maxRecord {
		msg = msg[:s.maxRecord]
		st.capped = true
		s.st.TruncatedRecords++
	}
	st.msg = append(st.msg[:0], msg...)
	return emitted
}

// appendLine folds a continuation line into st's candidate record.
func (s *Scanner) appendLine(st *stream, b []byte) {
	if st.capped {
		return
	}
	room := s.maxRecord - len(st.msg)
	if room <= 0 {
		st.capped = true
		s.st.TruncatedRecords++
		return
	}
	st.msg = append(st.msg, '\n')
	room--
	if len(b) > room {
		b = b[:room]
		st.capped = true
		s.st.TruncatedRecords++
	}
	st.msg = append(st.msg, b...)
}

// finish moves st's candidate record to s.out.
func (s *Scanner) finish(st *stream) {
	msg := st.msg
	for len(msg) > 0 && (msg[len(msg)-1] == '\n' || st.pipes && (msg[len(msg)-1] == ' ' || msg[len(msg)-1] == '|')) {
		msg = msg[:len(msg)-1]
	}
	s.out = st.rec
	s.out.Message = string(msg)
	st.cand = false
	if cap(st.msg) > keepMsgCap {
		st.msg = nil
	}
}

// Latest returns the newest event time of the records of service ("" for
// a file's own) read so far, whether they became records or not (a line the
// prefilter passes over still has its time read); zero when none had one.
func (s *Scanner) Latest(service string) time.Time {
	for _, st := range s.streams {
		if st.name == service && st.timed {
			return s.zone.time(st.maxMs)
		}
	}
	return time.Time{}
}

// noteTime records a record's event time in the time range, the service's
// figures and the gap list.
func (s *Scanner) noteTime(st *stream, ms int64) {
	if !s.hasTime || ms < s.minMs {
		s.minMs = ms
	}
	if !s.hasTime || ms > s.maxMs {
		s.maxMs = ms
	}
	s.hasTime = true
	if !st.timed || ms < st.minMs {
		st.minMs = ms
	}
	if !st.timed || ms > st.maxMs {
		st.maxMs = ms
	}
	st.timed = true
	if s.gapMs > 0 && st.hasLast && ms-st.lastMs >= s.gapMs {
		if len(s.st.Gaps) == maxGaps {
			s.dropShortGaps()
		}
		s.st.Gaps = append(s.st.Gaps, Gap{Service: st.name, From: s.zone.time(st.lastMs), To: s.zone.time(ms), Line: s.lineNo})
	}
	st.lastMs, st.hasLast = ms, true
}

// dropShortGaps forgets the shorter half of the silences kept, newer ones
// winning ties, and keeps the others in order: a file with more than
// maxGaps silences between two candidate records (which hand them on)
// loses the ones least likely to matter, not the latest.
func (s *Scanner) dropShortGaps() {
	gaps := s.st.Gaps
	byLength := make([]int, len(gaps))
	for i := range byLength {
		byLength[i] = i
	}
	slices.SortFunc(byLength, func(a, b int) int {
		if c := cmp.Compare(gaps[b].To.Sub(gaps[b].From), gaps[a].To.Sub(gaps[a].From)); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	keep := byLength[:len(gaps)/2]
	slices.Sort(keep) // back in the order found
	for j, i := range keep {
		gaps[j] = gaps[i] // i >= j: copied forward in place
	}
	clear(gaps[len(keep):])
	s.st.GapsDropped += int64(len(gaps) - len(keep))
	s.st.Gaps = gaps[:len(keep)]
}

// vote counts a sniffed record's layout.
func (s *Scanner) vote(l layoutID) {
	s.sniffed++
	s.votes[l]++
	if s.pref == layoutNone || s.votes[l] > s.votes[s.pref] {
		s.pref = l
	}
	if s.hint == layoutNone && (l == layoutL7 || l == layoutL8) {
		if s.votes[layoutL7] >= s.votes[layoutL8] {
			s.pipe = layoutL7
		} else {
			s.pipe = layoutL8
		}
	}
}

// beginFlush queues the candidate records still open at the end of input,
// in the order they started.
func (s *Scanner) beginFlush() {
	s.flushing = true
	for _, st := range s.streams {
		if st.cand {
			s.flush = append(s.flush, st)
		}
	}
	slices.SortFunc(s.flush, func(a, b *stream) int { return a.rec.Line - b.rec.Line })
}

func (s *Scanner) internBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if v, ok := s.intern[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(s.intern) < maxInterned {
		s.intern[v] = v
	}
	return v
}
