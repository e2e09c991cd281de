package signature

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// BenchmarkLoad200 parses and compiles 200 signatures, each with a
// message entry of its own, three steps and their expressions (the goal:
// under 1 s).
func BenchmarkLoad200(b *testing.B) {
	files := map[string]string{}
	var paths []string
	for i := range 200 {
		text := strings.ReplaceAll(base, "test_volume_failed", fmt.Sprintf("test_volume_failed_%d", i))
		text = strings.Replace(text, "id: test-sig", fmt.Sprintf("id: test-sig-%d", i), 1)
		text = strings.Replace(text, "      emit: {severity: warning}\n", `      emit: {severity: warning}
    - name: again
      on: startup
      where: e.host == failed.host && e.component == "datanode"
      within: 10m
    - name: gone
      absent: true
      on: shutdown
      within: 5m
      emit: {severity: 'again.version.startsWith("2.") ? "critical" : "warning"'}
facts:
  volume: failed.attrs.volume
  restarted: stamp(again.time)
`, 1)
		p := fmt.Sprintf("s%d.yaml", i)
		files[p] = text
		paths = append(paths, p)
	}
	read := func(p string) ([]byte, error) { return []byte(files[p]), nil }
	if _, err := compileAll(paths, read, false); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := compileAll(paths, read, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserve is one signal through a signature's first step (a
// where expression and the join key): the cost per signal of a kind the
// signature reads. Signals of other kinds never reach it.
func BenchmarkObserve(b *testing.B) {
	f, err := Parse("sig.yaml", []byte(base))
	if err != nil {
		b.Fatal(err)
	}
	s, err := Compile("sig.yaml", f, KnownKinds())
	if err != nil {
		b.Fatal(err)
	}
	d, err := s.newDetector(&detectors.Env{Settings: site.New(), Identity: detectors.NewIdentity(), Batch: true})
	if err != nil {
		b.Fatal(err)
	}
	sg := catalogue.Signal{Kind: "test_volume_failed", Time: t0, Host: "dn1", Component: parsers.ComponentDatanode,
		Attrs: map[string]string{"volume": "/data1"}}
	emit := func(detectors.Finding) {}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		sg.Host = fmt.Sprintf("dn%d", i%5) // five open incidents (max_open is 10), each gaining evidence
		d.Observe(&sg, emit)
	}
}
