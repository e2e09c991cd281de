package detectors

import (
	"slices"
	"testing"
	"time"
)

// lines returns evidence lines numbered from 1 to n.
func lines(n int) []Evidence {
	out := make([]Evidence, n)
	for i := range out {
		out[i] = Evidence{File: "scm.log", Line: i + 1}
	}
	return out
}

func numbers(ev []Evidence) []int {
	var out []int
	for _, e := range ev {
		out = append(out, e.Line)
	}
	return out
}

func span(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestEvidenceLogZeroValue(t *testing.T) {
	var l EvidenceLog
	if got := l.List(); got != nil || l.Dropped() != 0 {
		t.Fatalf("empty log: list %v, dropped %d", got, l.Dropped())
	}
	half := MaxEvidence / 2
	for _, tc := range []struct {
		added   int
		want    []int
		dropped int
	}{
		{1, []int{1}, 0},
		{half, span(1, half), 0},
		{half + 1, span(1, half+1), 0},
		{MaxEvidence, span(1, MaxEvidence), 0},
		{MaxEvidence + 1, append(span(1, half), span(half+2, MaxEvidence+1)...), 1},
		{MaxEvidence + 7, append(span(1, half), span(half+8, MaxEvidence+7)...), 7},
		{1000, append(span(1, half), span(1000-half+1, 1000)...), 1000 - MaxEvidence},
	} {
		var l EvidenceLog
		for _, e := range lines(tc.added) {
			l.Add(e)
		}
		if got := numbers(l.List()); !slices.Equal(got, tc.want) || l.Dropped() != tc.dropped {
			t.Errorf("%d lines: kept %v, dropped %d; want %v, dropped %d", tc.added, got, l.Dropped(), tc.want, tc.dropped)
		}
	}
}

func TestEvidenceLogSizes(t *testing.T) {
	for _, tc := range []struct {
		head, tail, added int
		want              []int
		dropped           int
	}{
		{3, 2, 2, []int{1, 2}, 0},
		{3, 2, 5, []int{1, 2, 3, 4, 5}, 0},
		{3, 2, 6, []int{1, 2, 3, 5, 6}, 1},
		{3, 2, 9, []int{1, 2, 3, 8, 9}, 4},
		{1, 4, 11, []int{1, 8, 9, 10, 11}, 6},
		{4, 1, 11, []int{1, 2, 3, 4, 11}, 6},
	} {
		l := EvidenceLog{Head: tc.head, Tail: tc.tail}
		for _, e := range lines(tc.added) {
			l.Add(e)
		}
		if got := numbers(l.List()); !slices.Equal(got, tc.want) || l.Dropped() != tc.dropped {
			t.Errorf("head %d tail %d, %d lines: kept %v, dropped %d; want %v, dropped %d",
				tc.head, tc.tail, tc.added, got, l.Dropped(), tc.want, tc.dropped)
		}
	}
}

// List hands out a copy: changing it leaves the log as it was.
func TestEvidenceLogListIsACopy(t *testing.T) {
	l := EvidenceLog{Head: 2, Tail: 2}
	for _, e := range lines(7) {
		l.Add(e)
	}
	got := l.List()
	got[0].Line, got[3].Line = 100, 100
	_ = append(got[:1], Evidence{Line: 200})
	if again := numbers(l.List()); !slices.Equal(again, []int{1, 2, 6, 7}) {
		t.Errorf("after changing a listed copy: %v", again)
	}
}

func TestSortEvidence(t *testing.T) {
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	ev := []Evidence{
		{Line: 1, Time: at.Add(2 * time.Second)},
		{Line: 2, Time: at},
		{Line: 3, Time: at.Add(time.Second)},
		{Line: 4, Time: at},
		{Line: 5, Time: at.Add(time.Second)},
	}
	SortEvidence(ev)
	if got := numbers(ev); !slices.Equal(got, []int{2, 4, 3, 5, 1}) {
		t.Errorf("sorted %v, want [2 4 3 5 1]", got)
	}
}
