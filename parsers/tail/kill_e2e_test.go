//go:build e2e

package tail

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// killState is what the tailer process of TestKillRestart checkpoints
// after every poll: its positions and how much of its output they
// account for (the output stands for the engine state a daemon saves).
type killState struct {
	Seq       int64              `json:"seq"`
	Positions []parsers.Position `json:"positions"`
	OutLen    int64              `json:"out_len"`
	Next      map[string]int     `json:"next"` // next line expected of each writer
}

const killEnv = "OZDOCTOR_TAIL_KILL_DIR"

// TestKillRestart runs the tailer in a child process that writes every
// line it is handed to an output file and then checkpoints, and kills it
// with SIGKILL again and again while two writers write and rotate their
// files (rename, copytruncate, gzip). Each restart truncates the output to
// what the last checkpoint accounts for and resumes from its positions; in
// the end the output must hold every line once, in order.
func TestKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	logs := filepath.Join(work, "logs")
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const lines = 100_000
	var rotMu sync.Mutex
	var seq atomic.Int64 // checkpoints written by the child
	var stop atomic.Bool
	writers := []*tortureWriter{
		{id: 'a', path: filepath.Join(logs, "a.log"), lines: lines, seed: seed + 1, rotMu: &rotMu, polls: &seq, stop: &stop},
		{id: 'b', path: filepath.Join(logs, "b.log"), lines: lines, seed: seed + 2, rotMu: &rotMu, polls: &seq, stop: &stop},
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
	var nextA, nextB atomic.Int64 // lines of each writer checkpointed
	for _, w := range writers {
		w.trace = func(string, ...any) {}
		n := &nextA
		if w.id == 'b' {
			n = &nextB
		}
		w.ready = func(first int) bool { return n.Load() > int64(first) }
		wg.Add(1)
		go func() { defer wg.Done(); w.run() }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	readState := func() killState {
		var st killState
		if b, err := os.ReadFile(filepath.Join(work, "state.json")); err == nil {
			json.Unmarshal(b, &st)
		}
		return st
	}
	// A writer rotates its file only once a checkpoint holds a line of the
	// file's current generation: the tailer saw it, and a restart is never
	// more than one rotation behind.
	go func() {
		for !stop.Load() {
			st := readState()
			seq.Store(st.Seq)
			nextA.Store(int64(st.Next["a"]))
			nextB.Store(int64(st.Next["b"]))
			time.Sleep(500 * time.Microsecond)
		}
	}()
	kills := 0
	start := time.Now()
	deadline := start.Add(60 * time.Second)
	finished := false
	for {
		cmd := exec.Command(exe, "-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killEnv+"="+work)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		before := readState().Seq
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Killed at a random moment once it has checkpointed (a child slow
		// to start, as under the race detector, still makes progress).
		for wait := time.Now().Add(5 * time.Second); readState().Seq == before && time.Now().Before(wait); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rng.Intn(60)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()
		kills++
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %d kills", kills)
		}
		select {
		case <-done:
			finished = true
		default:
		}
		if !finished {
			continue
		}
		st := readState()
		out, err := os.ReadFile(filepath.Join(work, "out"))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(out)) < st.OutLen {
			t.Fatalf("output %d bytes, checkpoint accounts for %d", len(out), st.OutLen)
		}
		out = out[:st.OutLen]
		if bytes.Count(out, []byte{'\n'}) < 2*lines {
			continue
		}
		next := map[byte]int{}
		for _, l := range bytes.SplitAfter(out, []byte{'\n'}) {
			if len(l) == 0 {
				continue
			}
			id, n, _, err := parseTortureLine(bytes.TrimSuffix(l, []byte{'\n'}))
			if err != nil {
				t.Fatal(err)
			}
			if n != next[id] {
				tr, _ := os.ReadFile(filepath.Join(work, "trace"))
				if d := os.Getenv("OZDOCTOR_TAIL_TRACE"); d != "" {
					os.WriteFile(d, tr, 0o644)
				}
				ls := bytes.Split(tr, []byte{'\n'})
				for _, l := range ls[max(0, len(ls)-80):] {
					if bytes.Contains(l, []byte("b.log")) {
						t.Logf("%.600s", l)
					}
				}
				t.Fatalf("writer %c line %d, want %d", id, n, next[id])
			}
			next[id]++
		}
		if next['a'] != lines || next['b'] != lines {
			t.Fatalf("lines %v", next)
		}
		break
	}
	for _, w := range writers {
		if w.err != nil {
			t.Fatal(w.err)
		}
	}
	var rots [rotKinds]int
	for _, w := range writers {
		for k, n := range w.rots {
			rots[k] += n
		}
	}
	t.Logf("%d lines by 2 writers, %d rotations (rename, rename+gzip, copytruncate, copytruncate+gzip: %v), %d SIGKILLs, %d checkpoints, %s: every line once, in order",
		2*lines, rots[0]+rots[1]+rots[2]+rots[3], rots, kills, readState().Seq, time.Since(start).Round(time.Millisecond))
}

// TestKillChild is the tailer process of TestKillRestart.
func TestKillChild(t *testing.T) {
	work := os.Getenv(killEnv)
	if work == "" {
		t.Skip("run by TestKillRestart")
	}
	var st killState
	b, err := os.ReadFile(filepath.Join(work, "state.json"))
	if err == nil {
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
	}
	out, err := os.OpenFile(filepath.Join(work, "out"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Truncate(st.OutLen); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(work, "logs")
	tl, err := New(Options{Globs: []string{filepath.Join(logs, "a.log"), filepath.Join(logs, "b.log*")},
		IdleFlush: -1, Linger: -1, MaxRead: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.Positions == nil {
		st.Positions = []parsers.Position{} // the files are read whole
	}
	if err := tl.Restore(st.Positions); err != nil {
		t.Fatal(err)
	}
	trace, err := os.OpenFile(filepath.Join(work, "trace"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	tl.tracef = func(f string, a ...any) { fmt.Fprintf(trace, "%d: "+f+"\n", append([]any{st.Seq}, a...)...) }
	fmt.Fprintf(trace, "restart at %d from %+v\n", st.Seq, st.Positions)
	var buf []byte
	for {
		chunks, err := tl.Poll(context.Background())
		if err != nil {
			for _, p := range st.Positions {
				t.Logf("%+v", p)
			}
			t.Fatal(err)
		}
		buf = buf[:0]
		if st.Next == nil {
			st.Next = map[string]int{}
		}
		for _, c := range chunks {
			for _, l := range c.Lines {
				buf = append(append(buf, l.Text...), '\n')
				if id, n, _, err := parseTortureLine(l.Text); err == nil && n+1 > st.Next[string(id)] {
					st.Next[string(id)] = n + 1
				}
			}
			if len(c.Lines) > 0 {
				tl.trace("chunk %s: %d lines %.10s .. %.10s end %v", c.Stream, len(c.Lines), c.Lines[0].Text, c.Lines[len(c.Lines)-1].Text, c.End)
			}
		}
		if _, err := out.WriteAt(buf, st.OutLen); err != nil {
			t.Fatal(err)
		}
		st.OutLen += int64(len(buf))
		st.Seq++
		st.Positions = tl.Positions()
		data, _ := json.Marshal(st)
		tmp := filepath.Join(work, "state.json.tmp"+strconv.Itoa(os.Getpid()))
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(work, "state.json")); err != nil {
			t.Fatal(err)
		}
		if !tl.More() {
			time.Sleep(time.Millisecond)
		}
	}
}
