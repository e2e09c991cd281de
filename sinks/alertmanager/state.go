package alertmanager

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/ozdoctor/ozdoctor/store/atomicfile"
)

// stateVersion is the version of the state file's layout.
const stateVersion = 1

// persisted is the state file: the firing alerts and every Alertmanager's
// queue, by its URL as configured.
type persisted struct {
	Version int                `json:"version"`
	Seq     uint64             `json:"seq"`
	Firing  []*firingAlert     `json:"firing"`
	Queues  map[string][]entry `json:"queues"`
}

// load reads the state directory (caller is New, before any use).
func (s *Sink) load() {
	if s.cfg.StateDir == "" {
		return
	}
	path := filepath.Join(s.cfg.StateDir, stateFile)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		s.stateError(fmt.Errorf("read alertmanager state: %w", err))
		return
	}
	var p persisted
	if err := json.Unmarshal(b, &p); err != nil {
		s.stateError(fmt.Errorf("read alertmanager state %s: %w", path, err))
		return
	}
	if p.Version != stateVersion {
		s.stateError(fmt.Errorf("read alertmanager state %s: version %d, want %d", path, p.Version, stateVersion))
		return
	}
	s.seq = p.Seq
	for _, a := range p.Firing {
		if a != nil && a.Fingerprint != "" {
			s.firing[a.Fingerprint] = a
		}
	}
	for _, t := range s.targets {
		for _, e := range p.Queues[t.stats.URL] {
			t.entries[e.Notice.key()] = &e
		}
	}
}

// save writes the state directory atomically (caller holds mu). A failure
// is kept for Stats; the sink goes on in memory.
func (s *Sink) save() {
	if s.cfg.StateDir == "" {
		return
	}
	p := persisted{Version: stateVersion, Seq: s.seq, Firing: []*firingAlert{}, Queues: map[string][]entry{}}
	for _, fp := range slices.Sorted(maps.Keys(s.firing)) {
		p.Firing = append(p.Firing, s.firing[fp])
	}
	for _, t := range s.targets {
		q := []entry{}
		for _, k := range slices.Sorted(maps.Keys(t.entries)) {
			q = append(q, *t.entries[k])
		}
		p.Queues[t.stats.URL] = q
	}
	b, err := json.Marshal(p)
	if err == nil {
		err = atomicfile.Write(filepath.Join(s.cfg.StateDir, stateFile), b)
	}
	if err != nil {
		s.stateError(fmt.Errorf("write alertmanager state: %w", err))
		return
	}
	s.stateErr = ""
}

func (s *Sink) stateError(err error) {
	s.stateErr = err.Error()
	s.stateErrs++
}
