package stream

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// pauseLine renders Ratis' JvmPauseMonitor warning (signatures-scm.md
// §1.3, org.apache.ratis.util.JvmPauseMonitor) at t.
func pauseLine(t time.Time, host string) []byte {
	return []byte(t.Format("2006-01-02 15:04:05,000") + " [JvmPauseMonitor0] WARN org.apache.ratis.util.JvmPauseMonitor: JvmPauseMonitor-" +
		host + ": Detected pause in JVM or host machine approximately 12.5s with 11.9s GC time.")
}

// ordinaryLine renders a line no catalogue entry reads (SCMBlockDeletingService,
// signatures-scm.md §6 B05) at t.
func ordinaryLine(t time.Time) []byte {
	return []byte(t.Format("2006-01-02 15:04:05,000") + " [scm1-SCMBlockDeletingService#0] INFO org.apache.hadoop.hdds.scm.block.SCMBlockDeletingService: " +
		"Totally added 94 blocks to be deleted for 4 datanodes / 6 totalnodes, limit per iteration : 500000blocks, task elapsed time: 1ms")
}

// Followed files move their streams' watermarks with every line, signal or
// not, and a file read to its end with no record open holds the others back
// no further than the wall clock: a signal is released a lateness after it,
// not after the idle timeout.
func TestFollowersMoveWatermarksWithOrdinaryLines(t *testing.T) {
	cat, err := catalogue.New()
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecognizer(cat, 0)
	m := NewMerger(Options{Lateness: 2 * time.Second, Idle: time.Hour})
	var released []string
	release := func(now time.Time) {
		m.Release(now, func(s *catalogue.Signal) { released = append(released, s.Host+" "+s.Time.Format("15:04:05")) })
	}
	a := r.Follow(File{Path: "scm1/ozone-hadoop-scm-scm1.log", Host: "scm1", Component: parsers.ComponentSCM, Kind: parsers.KindLog}, 1, 0, m)
	b := r.Follow(File{Path: "scm2/ozone-hadoop-scm-scm2.log", Host: "scm2", Component: parsers.ComponentSCM, Kind: parsers.KindLog}, 1, 0, m)
	wall := t0
	feed := func(f *Follower, lines ...[]byte) {
		for i, l := range lines {
			f.FeedLine(l, i+1, 0)
		}
		f.Drain(wall)
	}
	feed(a, pauseLine(t0, "scm1"), ordinaryLine(t0.Add(time.Second)))
	feed(b, pauseLine(t0.Add(time.Second), "scm2"), ordinaryLine(t0.Add(2*time.Second)))
	release(wall)
	if len(released) != 0 {
		t.Fatalf("released %v before any stream passed 2s", released)
	}
	// Ordinary lines up to 10s on both: both pauses are released.
	feed(a, ordinaryLine(t0.Add(5*time.Second)), ordinaryLine(t0.Add(10*time.Second)))
	feed(b, ordinaryLine(t0.Add(10*time.Second)))
	release(wall)
	if want := []string{"scm1 10:00:00", "scm2 10:00:01"}; !slices.Equal(released, want) {
		t.Fatalf("released %v, want %v", released, want)
	}
	// scm1 logs a pause as its last line; scm2 goes on. Once scm1 is read to
	// its end with no record open, its pause is released at the wall clock.
	released = nil
	feed(a, pauseLine(t0.Add(20*time.Second), "scm1"))
	feed(b, ordinaryLine(t0.Add(30*time.Second)))
	wall = t0.Add(25 * time.Second)
	release(wall)
	if len(released) != 0 {
		t.Fatalf("released %v while scm1's last record is open", released)
	}
	a.Flush(wall)
	a.CaughtUp(wall)
	release(wall)
	if want := []string{"scm1 10:00:20"}; !slices.Equal(released, want) {
		t.Fatalf("released %v, want %v", released, want)
	}
}

// scanSCMSilences recognises text as scm1's SCM log, with silences of 10s
// or more, and returns what the scan gave and the silences pushed.
func scanSCMSilences(t *testing.T, cat *catalogue.Catalogue, text io.Reader) (FileResult, []catalogue.Signal) {
	t.Helper()
	m := NewMerger(Options{})
	f := File{Path: "scm1/ozone-hadoop-scm-scm1.log", Host: "scm1", Component: parsers.ComponentSCM, Kind: parsers.KindLog}
	res, err := NewRecognizer(cat, 10*time.Second).Scan(f, text, m, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var silences []catalogue.Signal
	m.Drain(func(s *catalogue.Signal) {
		if s.Kind == catalogue.LogGap {
			silences = append(silences, *s)
		}
	})
	return res, silences
}

// Past the thousand silences a scanner keeps between two records with
// signals, the shorter ones go: a long silence just before the pause line
// still reaches the detectors, and the report counts what went.
func TestLongSilenceOutlivesShortOnes(t *testing.T) {
	cat, err := catalogue.New()
	if err != nil {
		t.Fatal(err)
	}
	const quiet = 1500 // ordinary lines, 20s apart
	var text bytes.Buffer
	at := t0
	for range quiet {
		text.Write(ordinaryLine(at))
		text.WriteByte('\n')
		at = at.Add(20 * time.Second)
	}
	at = at.Add(5 * time.Minute) // the SCM stood still
	text.Write(pauseLine(at, "scm1"))
	text.WriteByte('\n')
	res, silences := scanSCMSilences(t, cat, &text)
	if int64(len(silences))+res.Stats.GapsDropped != quiet || res.Stats.GapsDropped == 0 {
		t.Fatalf("%d silences pushed, %d dropped; want %d in all, some dropped", len(silences), res.Stats.GapsDropped, quiet)
	}
	if last := silences[len(silences)-1].Duration; last != 5*time.Minute+20*time.Second {
		t.Errorf("last silence pushed lasts %v, want the long one", last)
	}
}

// A quiet log has a silence per record: every one is pushed, past the
// thousand a scanner keeps at a time, as long as no thousand come between
// two records with signals (they are pushed after the next such record).
func TestEverySilenceIsPushed(t *testing.T) {
	cat, err := catalogue.New()
	if err != nil {
		t.Fatal(err)
	}
	const lines, every = 2500, 500 // a pause line every 500 lines
	var text bytes.Buffer
	for i := range lines {
		at := t0.Add(time.Duration(i) * 20 * time.Second)
		if i%every == every-1 {
			text.Write(pauseLine(at, "scm1"))
		} else {
			text.Write(ordinaryLine(at))
		}
		text.WriteByte('\n')
	}
	res, silences := scanSCMSilences(t, cat, &text)
	pauses := int64(lines / every)
	if len(silences) != lines-1 || res.Signals != lines-1+pauses || res.Stats.GapsDropped != 0 {
		t.Fatalf("%d silences pushed, %d signals, %d dropped; want %d, %d, 0",
			len(silences), res.Signals, res.Stats.GapsDropped, lines-1, lines-1+pauses)
	}
	if last := t0.Add((lines - 1) * 20 * time.Second); !silences[lines-2].Time.Equal(last) {
		t.Errorf("last silence ends at %v, want %v", silences[lines-2].Time, last)
	}
}
