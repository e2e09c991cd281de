//lint:file-ignore U1000 the test types' fields are read and written only by reflection (the snapshot codec)

package cases

import (
	"strings"
	"testing"
	"time"

	"github.com/ozdoctor/ozdoctor/detectors"
)

type leaf struct{ n int }

type good struct {
	env   *detectors.Env `state:"-"`
	fn    func()         `state:"-"`
	at    time.Time
	d     time.Duration
	m     map[string]*leaf
	b     *detectors.Bounded[string, *leaf]
	items []leaf
}

func TestCheckState(t *testing.T) {
	g := &good{env: &detectors.Env{}, fn: func() {}, at: time.Now(), m: map[string]*leaf{"a": {1}},
		b: detectors.NewBounded[string, *leaf](2, detectors.EvictOldest), items: []leaf{{2}}}
	g.b.Put("x", &leaf{3})
	if err := CheckState(g); err != nil {
		t.Fatal(err)
	}
	shared := &leaf{4}
	g.b.Put("y", shared)
	g.m["b"] = shared
	if err := CheckState(g); err == nil || !strings.Contains(err.Error(), "same pointer") {
		t.Errorf("aliasing: %v", err)
	}
	type bad struct{ f func() }
	if err := CheckState(&bad{}); err == nil || !strings.Contains(err.Error(), "detector).f") {
		t.Errorf("func field: %v", err)
	}
	type iface struct{ v any }
	if err := CheckState(&iface{v: 1}); err == nil {
		t.Error("interface field accepted")
	}
}
