package stream

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

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
	m := NewMerger(Options{Lateness: 5 * time.Second, SpillBudget: 16 << 10, SpillDir: dir})
	got := feed(m)
	st := m.SpillStats()
	if st.Runs < 10 || st.Signals < 3000 || st.Error != "" {
		t.Fatalf("spill stats %+v: want many runs holding most signals, no error", st)
	}
	if len(got) != len(want) {
		t.Fatalf("released %d signals with spilling, %d without", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("signal %d: %q with spilling, %q without", i, got[i], want[i])
		}
	}
	relabelled := 0
	for _, s := range got {
		if strings.Contains(s, " dn9/datanode f5-") {
			relabelled++
		}
	}
	if relabelled < 290 {
		t.Fatalf("%d of stream 5's signals relabelled, want all its timed ones", relabelled)
	}
	if m.Queued() != 0 {
		t.Fatalf("%d signals still queued", m.Queued())
	}
}
