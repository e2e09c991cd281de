package divisionclosing

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// TestCheckOfTheChangedDivisionActsAsCheckOfAll feeds random mixes of every
// signal the detector reads, over three datanodes and four groups, to two
// detectors: one as it runs, and one made to visit every division after
// each signal, as check did before it looked at the changed one alone.
// Both must emit the same findings in the same order, in a live run and
// in a batch one (which leaves out the updates of a stuck division).
func TestCheckOfTheChangedDivisionActsAsCheckOfAll(t *testing.T) {
	for seed := range uint64(30) {
		steps := mixedSteps(rand.New(rand.NewPCG(seed, 7)), 500)
		batch := seed%2 == 1
		got, want := runSteps(t, steps, batch, false), runSteps(t, steps, batch, true)
		if len(want) == 0 {
			t.Fatalf("seed %d: no finding at all: the mix tests nothing", seed)
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("seed %d: emission %d of %d differs:\n got %s %s %s\nwant %s %s %s", seed, i, len(want),
						got[i].Key, got[i].State, got[i].Summary, want[i].Key, want[i].State, want[i].Summary)
				}
			}
			t.Fatalf("seed %d: %d emissions, want %d", seed, len(got), len(want))
		}
	}
}

// step is a signal to observe or, with no kind, a time to advance to.
type step struct {
	sig catalogue.Signal
	at  time.Time
}

// runSteps runs a detector over steps and returns every finding it emitted;
// visitAll makes each signal's check visit every division.
func runSteps(t *testing.T, steps []step, batch, visitAll bool) []detectors.Finding {
	t.Helper()
	env := &detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Batch: batch}
	for i := range steps {
		if steps[i].sig.Kind != "" {
			env.Identity.Learn(&steps[i].sig)
		}
	}
	det, err := newDetector(env)
	if err != nil {
		t.Fatal(err)
	}
	d := det.(*detector)
	var out []detectors.Finding
	emit := func(f detectors.Finding) { out = append(out, f) }
	var end time.Time
	for i := range steps {
		s := steps[i].sig
		if s.Kind == "" {
			d.Advance(steps[i].at, emit)
			end = steps[i].at
			continue
		}
		if visitAll {
			d.idleUntil = time.Time{}
		}
		d.Observe(&s, emit)
		end = s.Time
	}
	d.Advance(end, emit) // as the engine does before End
	d.End(end, emit)
	return out
}

// mixedSteps returns n steps over a few hours: the trigger, close failures
// of every kind, removals, completions, SCM's resent commands, samples of
// the close-failure counter, restarts and ticks, on random datanodes and
// groups.
func mixedSteps(r *rand.Rand, n int) []step {
	hosts := []string{"dn1", "dn2", "dn3"}
	groups := []string{"4C3FA0E1B2D9", "0A1B2C3D4E5F", "99887766AABB", "123456789ABC"}
	var steps []step
	fails := make([]float64, len(hosts)) // a counter of each datanode's
	at := t0
	for len(steps) < n {
		switch r.IntN(10) {
		case 0:
			at = at.Add(time.Duration(r.IntN(8)) * time.Minute)
		default:
			at = at.Add(time.Duration(r.IntN(40_000)) * time.Millisecond)
		}
		hi, g := r.IntN(len(hosts)), groups[r.IntN(len(groups))]
		on := func(s catalogue.Signal) catalogue.Signal { return onHost(s, hosts[hi], hi, g) }
		c := uint64(10*hi + r.IntN(4))
		var add []catalogue.Signal
		switch r.IntN(15) {
		case 0:
			thread := fmt.Sprintf("%s-client-thread%d", uuidOf(hi), r.IntN(3))
			add = append(add, on(writeTimeout(at, thread)), on(closeServer(at.Add(time.Millisecond), thread)),
				on(shutdown(at.Add(2*time.Millisecond), thread)))
		case 1:
			thread := fmt.Sprintf("%s-server-thread%d", uuidOf(hi), r.IntN(3))
			add = append(add, on(closeServer(at, thread)), on(shutdown(at.Add(time.Millisecond), thread)))
		case 2, 3, 4:
			add = append(add, on(failed(at, c, "ServerNotReadyException", "CLOSING")))
		case 5, 6:
			add = append(add, on(failed(at, c, "GroupMismatchException", "")))
		case 7:
			add = append(add, on(failed(at, c, "RejectedExecutionException", "")))
		case 8:
			add = append(add, on(removal(at, []string{"CLOSING", "RUNNING"}[r.IntN(2)])))
		case 9:
			add = append(add, on([]func(time.Time) catalogue.Signal{storageRemoved, pipelineClosed}[r.IntN(2)](at)))
		case 10:
			add = append(add, on(quasiClosed(at, c, "group-"+g)))
		case 11, 12:
			add = append(add, on(resend(at, c, "QUASI_CLOSED")))
		case 13:
			fails[hi] += float64(r.IntN(2))
			s := on(dn(catalogue.MetricSample, at, ""))
			s.Metric, s.Value, s.Attrs = csmFails, fails[hi], map[string]string{"raftgroupid": "group-" + g}
			add = append(add, s)
		default:
			if r.IntN(4) == 0 {
				add = append(add, on(startup(at, "2.3.0-SNAPSHOT")))
			} else {
				steps = append(steps, step{at: at})
			}
		}
		for _, s := range add {
			steps = append(steps, step{sig: s})
		}
		if last := steps[len(steps)-1]; last.sig.Time.After(at) {
			at = last.sig.Time
		}
	}
	return steps
}

// onHost moves a signal made for dn3 and group to datanode i, host, and
// group g (as its last twelve hex digits).
func onHost(s catalogue.Signal, host string, i int, g string) catalogue.Signal {
	uuid := uuidOf(i)
	pipeline := "8a1c2d3e-4f50-6172-8394-" + strings.ToLower(g)
	if s.Component == parsers.ComponentSCM {
		s.Datanode = catalogue.Datanode{UUID: uuid, Host: host + ".example.com", IP: fmt.Sprintf("10.0.2.%d", i+1)}
		s.Pipeline = pipeline
		return s
	}
	s.Host = host
	s.Origin.File = host + "/ozone-hadoop-datanode-" + host + ".example.com.log"
	if s.Peer != "" {
		s.Peer = uuid
	}
	if s.Group != "" {
		s.Group = "group-" + g
	}
	if s.Pipeline != "" {
		s.Pipeline, s.Datanode = pipeline, catalogue.Datanode{UUID: uuid}
	}
	s.Thread = strings.ReplaceAll(s.Thread, dnUUID, uuid)
	return s
}

func uuidOf(i int) string { return fmt.Sprintf("6c1f8a2e-2d7b-4c55-9f0e-00000000000%d", i) }
