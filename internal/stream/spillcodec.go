package stream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// The spill file holds queued items as length-prefixed records of
// catalogue.Signal's fields in declaration order (varints, length-prefixed
// strings, lists and maps counted with 0 for nil), the time as seconds,
// nanoseconds and an index into the spiller's zones, then the item's stream,
// rank and arrival and the spill that wrote it. TestSpillCodecRoundTrip fills
// every field of Signal, so a field added there and not here fails it.

// appendItem appends the record of it to b.
func appendItem(b []byte, it *item, zone, spill int) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0) // length, patched below
	s := &it.sig
	b = appendString(b, string(s.Kind))
	b = binary.AppendVarint(b, s.Time.Unix())
	b = binary.AppendUvarint(b, uint64(s.Time.Nanosecond()))
	b = binary.AppendUvarint(b, uint64(zone))
	b = appendString(b, s.Host)
	b = appendString(b, string(s.Component))
	b = append(b, byte(s.Level))
	b = appendString(b, s.Thread)
	b = appendString(b, s.Origin.File)
	b = binary.AppendVarint(b, int64(s.Origin.Line))
	b = binary.AppendVarint(b, s.Origin.Offset)
	b = appendString(b, s.Text)
	b = appendString(b, s.Datanode.UUID)
	b = appendString(b, s.Datanode.Host)
	b = appendString(b, s.Datanode.IP)
	b = binary.AppendUvarint(b, s.Container)
	b = appendString(b, s.Pipeline)
	b = appendStrings(b, s.Pipelines)
	b = appendString(b, s.Group)
	b = appendString(b, s.Peer)
	b = appendString(b, s.OMNode)
	b = appendStrings(b, s.Peers)
	b = appendStrings(b, s.OldPeers)
	for _, v := range []int64{int64(s.Duration), s.Count, s.Index, s.Term, s.BCSID, s.MaxBCSID} {
		b = binary.AppendVarint(b, v)
	}
	b = appendString(b, s.State)
	b = appendString(b, s.Reason)
	b = appendString(b, s.Version)
	b = appendString(b, s.Version2)
	b = appendString(b, s.Apparent)
	b = appendString(b, s.Apparent2)
	b = append(b, boolByte(s.NonEmpty), boolByte(s.Force))
	if s.Attrs == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(s.Attrs))+1)
		for k, v := range s.Attrs {
			b = appendString(b, k)
			b = appendString(b, v)
		}
	}
	b = appendString(b, s.Metric)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Value))
	b = binary.AppendVarint(b, int64(it.stream))
	b = binary.AppendVarint(b, int64(it.rank))
	b = binary.AppendUvarint(b, it.seq)
	b = binary.AppendUvarint(b, uint64(spill))
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(ss))+1)
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// readItem reads the next record from r into it, with its time in
// zones[zone]; buf is reused between calls, and names keeps the fields of
// few values (decoder.name). It returns the spill that wrote the item.
func readItem(r *bufio.Reader, buf *[]byte, zones []*time.Location, names map[string]string, it *item) (spill int, err error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return 0, err
	}
	size := int(binary.LittleEndian.Uint32(n[:]))
	if cap(*buf) < size {
		*buf = make([]byte, size)
	}
	b := (*buf)[:size]
	if _, err := io.ReadFull(r, b); err != nil {
		return 0, err
	}
	d := decoder{b: b, names: names}
	s := &it.sig
	s.Kind = catalogue.Kind(d.name())
	sec, nsec, zone := d.varint(), d.uvarint(), d.uvarint()
	if d.err == nil && zone >= uint64(len(zones)) {
		d.err = errors.New("zone out of range")
	}
	if d.err == nil {
		s.Time = time.Unix(sec, int64(nsec)).In(zones[zone])
	}
	s.Host = d.name()
	s.Component = parsers.Component(d.name())
	s.Level = parsers.Level(d.byte())
	s.Thread = d.name()
	s.Origin.File = d.name()
	s.Origin.Line = int(d.varint())
	s.Origin.Offset = d.varint()
	s.Text = d.string()
	s.Datanode.UUID, s.Datanode.Host, s.Datanode.IP = d.name(), d.name(), d.name()
	s.Container = d.uvarint()
	s.Pipeline = d.string()
	s.Pipelines = d.strings()
	s.Group, s.Peer, s.OMNode = d.string(), d.string(), d.string()
	s.Peers = d.strings()
	s.OldPeers = d.strings()
	s.Duration = time.Duration(d.varint())
	s.Count, s.Index, s.Term, s.BCSID, s.MaxBCSID = d.varint(), d.varint(), d.varint(), d.varint(), d.varint()
	s.State, s.Reason, s.Version, s.Version2 = d.name(), d.string(), d.name(), d.name()
	s.Apparent, s.Apparent2 = d.string(), d.string()
	s.NonEmpty, s.Force = d.byte() == 1, d.byte() == 1
	if n := d.uvarint(); n > 0 && d.err == nil {
		s.Attrs = make(map[string]string, min(n-1, uint64(len(b))))
		for i := uint64(1); i < n && d.err == nil; i++ {
			k := d.name()
			s.Attrs[k] = d.string()
		}
	}
	s.Metric = d.name()
	s.Value = math.Float64frombits(d.uint64())
	it.stream = ID(d.varint())
	it.rank = int32(d.varint())
	it.seq = d.uvarint()
	spill = int(d.uvarint())
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes left over", len(d.b))
	}
	if d.err != nil {
		return 0, fmt.Errorf("a damaged record: %w", d.err)
	}
	return spill, nil
}

// decoder reads a record's fields; the first error sticks. Every string is
// a copy of its own bytes, not a window on the record: a detector that keeps
// a signal's text or group keeps that alone.
type decoder struct {
	b     []byte // what is left to read
	names map[string]string
	err   error
}

// maxNames bounds the names kept; beyond it each is a copy of its own.
const maxNames = 1 << 16

// name reads a string of few values (a host, a file, a thread, a kind):
// one copy serves every record read back, and a detector that keeps it
// (evidence names its host and file) does not keep the whole record.
func (d *decoder) name() string {
	b := d.bytes()
	if len(b) == 0 {
		return ""
	}
	if v, ok := d.names[string(b)]; ok {
		return v
	}
	s := string(b)
	if len(d.names) < maxNames {
		d.names[s] = s
	}
	return s
}

var errShort = errors.New("record cut short")

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) string() string { return string(d.bytes()) }

// bytes reads a length-prefixed string's bytes, a window on the record.
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) strings() []string {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return nil
	}
	out := make([]string, 0, min(n-1, uint64(len(d.b))))
	for i := uint64(1); i < n && d.err == nil; i++ {
		out = append(out, d.string())
	}
	return out
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}
