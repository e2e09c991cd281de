package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// A signal read back from the spill keeps none of its record: a detector
// that keeps its text (evidence does) holds those bytes, not the 8 MiB
// reason beside them.
func TestSpilledTextKeepsNoRecord(t *testing.T) {
	in := item{sig: catalogue.Signal{Kind: "k", Time: t0, Text: "short text", Reason: strings.Repeat("r", 8<<20)}}
	b := appendItem(nil, &in, 0, 0)
	read := func() string {
		var out item
		var buf []byte
		if _, err := readItem(bufio.NewReader(bytes.NewReader(b)), &buf, []*time.Location{time.UTC}, map[string]string{}, &out); err != nil {
			t.Fatal(err)
		}
		return out.sig.Text
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	text := read()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); text != "short text" || grown > 4<<20 {
		t.Errorf("keeping the text %q keeps %d more bytes of heap", text, grown)
	}
	runtime.KeepAlive(in)
	runtime.KeepAlive(b)
	runtime.KeepAlive(text)
}

// A held merger with a small spill budget hands on the same signals, in the
// same order, with the same labels and times, as one that keeps them all in
// memory: streams of several hosts and zones, disorder within streams, a
// stream relabelled after part of it went to disk, untimed signals.
func TestMergerSpillKeepsTheOrder(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	feed := func(m *Merger) []string {
		rng := rand.New(rand.NewSource(7))
		m.Hold()
		var out []string
		emit := func(s *catalogue.Signal) {
			out = append(out, fmt.Sprintf("%s %s/%s %s %s %v", s.Time.Format(time.RFC3339Nano), s.Host, s.Component, s.Text, s.Time.Location(), s.Peers))
		}
		for f := 0; f < 12; f++ {
			host, comp, zone := fmt.Sprintf("dn%d", f%4), parsers.ComponentDatanode, time.UTC
			if f%3 == 0 {
				zone = berlin
			}
			id := m.Open(host, parsers.ComponentDatanode, time.Time{})
			if f == 5 {
				host, comp = "", "" // a capture whose banner names the host later
				m.Relabel(id, "", "")
			}
			for i := 0; i < 300; i++ {
				at := t0.Add(time.Duration(i*10+rng.Intn(30)) * time.Second).In(zone)
				s := catalogue.Signal{Kind: "k", Time: at, Host: host, Component: comp, Text: fmt.Sprintf("f%d-%d", f, i)}
				if i%50 == 0 {
					s.Peers = []string{"p1", "p2"}
				}
				if i == 200 && f == 5 {
					m.Relabel(id, "dn9", parsers.ComponentDatanode)
					host, comp = "dn9", parsers.ComponentDatanode
				}
				if i%97 == 0 {
					s.Time = time.Time{}
				}
				m.Push(id, s, time.Time{})
			}
			m.Close(id)
			m.Release(time.Time{}, emit)
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Fatalf("spill files left in the directory: %v", entries)
			}
		}
		// Three OMs log the same configuration entries; om2's clock is 4 s
		// ahead, learned as the first entries are released: its later
		// signals take their place by the corrected time.
		for h, ahead := range []time.Duration{0, 4 * time.Second, 0} {
			host := fmt.Sprintf("om%d", h+1)
			id := m.Open(host, parsers.ComponentOM, time.Time{})
			for i := 0; i < 200; i++ {
				at := t0.Add(time.Duration(i)*3*time.Second + ahead + time.Duration(h)*time.Millisecond)
				s := catalogue.Signal{Kind: "probe", Time: at, Host: host, Component: parsers.ComponentOM, Text: fmt.Sprintf("%s-%d", host, i)}
				if i%10 == 0 {
					s.Kind, s.Group, s.Index = catalogue.OMRaftConfSet, "group-C5BA1605619E", int64(i)
				}
				m.Push(id, s, time.Time{})
			}
			m.Close(id)
		}
		m.Unhold()
		m.Drain(emit)
		if len(m.Offsets()) == 0 || !m.Offsets()[len(m.Offsets())-1].Applied {
			t.Fatalf("offsets %+v: want om2's applied", m.Offsets())
		}
		return out
	}
	want := feed(NewMerger(Options{Lateness: 5 * time.Second}))
	// 16 KiB: many runs, each read with the small buffer; 2 MiB: a few
	// runs, whose buffers widen when the merger drains (spiller.widen).
	for _, budget := range []int64{16 << 10, 2 << 20} {
		m := NewMerger(Options{Lateness: 5 * time.Second, SpillBudget: budget, SpillDir: dir})
		got := feed(m)
		st := m.SpillStats()
		if st.Runs < 2 || st.Signals < 1000 || st.Error != "" || st.Lost != "" {
			t.Fatalf("budget %d: spill stats %+v: want runs holding many signals, no error", budget, st)
		}
		if len(got) != len(want) {
			t.Fatalf("budget %d: released %d signals with spilling, %d without", budget, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("budget %d: signal %d: %q with spilling, %q without", budget, i, got[i], want[i])
			}
		}
		relabelled := 0
		for _, s := range got {
			if strings.Contains(s, " dn9/datanode f5-") {
				relabelled++
			}
		}
		if relabelled < 290 {
			t.Fatalf("budget %d: %d of stream 5's signals relabelled, want all its timed ones", budget, relabelled)
		}
		if m.Queued() != 0 {
			t.Fatalf("budget %d: %d signals still queued", budget, m.Queued())
		}
	}
}

// Every field of a Signal survives the spill file: the test fills each one
// by reflection, so a field added to Signal and not to the codec fails it.
func TestSpillCodecRoundTrip(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	var s catalogue.Signal
	v := reflect.ValueOf(&s).Elem()
	var fill func(v reflect.Value, n int)
	fill = func(v reflect.Value, n int) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(fmt.Sprintf("text-%d", n))
		case reflect.Int, reflect.Int64:
			v.SetInt(-int64(n) * 1000003)
		case reflect.Uint8, reflect.Uint64:
			v.SetUint(uint64(n + 1))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Float64:
			v.SetFloat(float64(n) + 0.25)
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{fmt.Sprint("a", n), fmt.Sprint("b", n)}))
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"k": fmt.Sprint(n), "": "empty key"}))
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				v.Set(reflect.ValueOf(time.Date(2026, 8, 23, 10, 0, 1, 123456789, berlin)))
				return
			}
			for i := 0; i < v.NumField(); i++ {
				fill(v.Field(i), n*10+i)
			}
		default:
			t.Fatalf("field of kind %s: teach the codec and this test", v.Kind())
		}
	}
	for i := 0; i < v.NumField(); i++ {
		fill(v.Field(i), i+1)
	}
	zones := []*time.Location{time.UTC, berlin}
	for _, sig := range []catalogue.Signal{s, {Kind: "k", Time: t0, Peers: []string{}, Attrs: map[string]string{}}} {
		in := item{sig: sig, stream: 7, seq: 1 << 40, rank: 12345}
		zone := slices.Index(zones, sig.Time.Location())
		b := appendItem(nil, &in, zone, 3)
		var out, again item
		var buf []byte
		names := map[string]string{}
		spill, err := readItem(bufio.NewReader(bytes.NewReader(b)), &buf, zones, names, &out)
		if err != nil || spill != 3 || out.stream != 7 || out.seq != 1<<40 || out.rank != 12345 {
			t.Fatalf("read back: spill %d, stream %d, seq %d, rank %d, %v", spill, out.stream, out.seq, out.rank, err)
		}
		if !reflect.DeepEqual(out.sig, sig) || out.sig.Time.Location() != sig.Time.Location() {
			t.Fatalf("read back\n%+v\nwrote\n%+v", out.sig, sig)
		}
		// Names read twice are one copy: what keeps a host or a file does
		// not keep its record. Texts stay within their record.
		if _, err := readItem(bufio.NewReader(bytes.NewReader(b)), &buf, zones, names, &again); err != nil {
			t.Fatal(err)
		}
		same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
		if sig.Host != "" && (!same(out.sig.Host, again.sig.Host) || !same(out.sig.Origin.File, again.sig.Origin.File) ||
			!same(string(out.sig.Kind), string(again.sig.Kind)) || same(out.sig.Text, again.sig.Text)) {
			t.Errorf("names are not shared between records read back, or texts are")
		}
		// A record cut anywhere is an error, never a wrong signal.
		for cut := 1; cut < len(b); cut++ {
			if _, err := readItem(bufio.NewReader(bytes.NewReader(b[:cut])), &buf, zones, names, &out); err == nil {
				t.Fatalf("a record cut at %d of %d bytes was read", cut, len(b))
			}
		}
	}
}

// A spill whose writing fails (here: the file swapped for a read-only one
// after the first spills) stops spilling: the queue takes its signals back,
// with a relabelling made while it was being written, and the merger hands
// on what one that keeps everything in memory hands on.
func TestMergerSpillFailureKeepsTheSignals(t *testing.T) {
	relabelAt := -1
	feed := func(m *Merger, failAt int) []string {
		m.Hold()
		var out []string
		emit := func(s *catalogue.Signal) {
			out = append(out, fmt.Sprintf("%s %s %s", s.Time.Format(time.RFC3339Nano), s.Host, s.Text))
		}
		var ids []ID
		for h := range 3 {
			ids = append(ids, m.Open(fmt.Sprintf("dn%d", h), parsers.ComponentDatanode, time.Time{}))
		}
		rng := rand.New(rand.NewSource(3))
		for i := 0; i < 900; i++ {
			if i == failAt {
				m.settle()
				ro, err := os.Open(os.DevNull)
				if err != nil {
					t.Fatal(err)
				}
				written := m.spill.file
				t.Cleanup(func() { written.Close() }) // its runs read on from it
				m.spill.file = ro
			}
			if failAt >= 0 && i > failAt && relabelAt < 0 && m.spill.writing != nil {
				relabelAt = i // the failing spill is being written
			}
			if i == relabelAt {
				m.Relabel(ids[1], "dn9", parsers.ComponentDatanode)
			}
			h := i % 3
			at := t0.Add(time.Duration(i*100+rng.Intn(2000)) * time.Millisecond)
			m.Push(ids[h], catalogue.Signal{Kind: "k", Time: at, Host: fmt.Sprintf("dn%d", h), Text: fmt.Sprintf("s%d", i)}, time.Time{})
		}
		m.Unhold()
		m.Drain(emit)
		return out
	}
	m := NewMerger(Options{Lateness: 5 * time.Second, SpillBudget: 16 << 10, SpillDir: t.TempDir()})
	got := feed(m, 300)
	st := m.SpillStats()
	if relabelAt < 0 || st.Error == "" || st.Lost != "" || st.Signals == 0 {
		t.Fatalf("relabelled at %d, spill stats %+v: want a relabelling during the failing spill, an error, signals spilled before it", relabelAt, st)
	}
	want := feed(NewMerger(Options{Lateness: 5 * time.Second}), -1)
	if !slices.Equal(got, want) {
		t.Fatalf("after a failed spill the merger handed on\n%v\nwithout spilling\n%v", got, want)
	}
	relabelled := 0
	for _, s := range got {
		if strings.Contains(s, " dn9 ") {
			relabelled++
		}
	}
	if relabelled == 0 {
		t.Fatal("no signal carries the new label")
	}
}

// A spill file cut short loses the signals of the runs it cut, and says how
// many: every other signal is handed on in order, whether the runs are read
// with the small buffer (64 KiB: many runs) or widened ones (2 MiB: a few,
// spiller.widen). One line says it, however many runs were cut. One host:
// a run holds a whole spill, more than its read buffer.
func TestMergerSpillCutShortSaysWhatItLost(t *testing.T) {
	for _, budget := range []int64{64 << 10, 2 << 20} {
		m := NewMerger(Options{Lateness: 5 * time.Second, SpillBudget: budget, SpillDir: t.TempDir()})
		m.Hold()
		ids := []ID{m.Open("dn0", parsers.ComponentDatanode, time.Time{}), m.Open("dn0", parsers.ComponentDatanode, time.Time{})}
		rng := rand.New(rand.NewSource(5))
		const pushed = 6000
		for i := range pushed {
			at := t0.Add(time.Duration(i*100+rng.Intn(2000)) * time.Millisecond)
			m.Push(ids[i%2], catalogue.Signal{Kind: "k", Time: at, Host: "dn0", Text: strings.Repeat("x", 100)}, time.Time{})
		}
		m.settle()
		sp := m.spill
		if sp.stats.Runs < 4 {
			t.Fatalf("budget %d: %d runs, want several", budget, sp.stats.Runs)
		}
		if err := sp.file.Truncate(sp.end / 2); err != nil {
			t.Fatal(err)
		}
		var times []time.Time
		m.Unhold()
		m.Drain(func(s *catalogue.Signal) { times = append(times, s.Time) })
		st := m.SpillStats()
		var lost, runs int
		if _, err := fmt.Sscanf(st.Lost[strings.LastIndex(st.Lost, ": ")+1:], "%d signals lost from %d runs", &lost, &runs); err != nil ||
			runs < 2 || !strings.HasPrefix(st.Lost, "spill: reading run ") {
			t.Fatalf("budget %d: lost %q: %v", budget, st.Lost, err)
		}
		if len(times)+lost != pushed || m.Queued() != 0 {
			t.Fatalf("budget %d: %d handed on, %d lost (%q), %d queued: want %d in all", budget, len(times), lost, st.Lost, m.Queued(), pushed)
		}
		if !slices.IsSortedFunc(times, time.Time.Compare) {
			t.Fatalf("budget %d: the signals left are out of order", budget)
		}
	}
}
