package scripts

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"github.com/ozdoctor/ozdoctor/internal/scenario"
)

// Fleet says what RenderFleet writes: a production-sized cluster's logs
// over many periods, for benchmarks.
type Fleet struct {
	Datanodes int           // besides 3 SCMs and 4 OMs (one of which bootstraps in HDDS-16839)
	Periods   int           // periods rendered one after the other
	Period    time.Duration // length of one
	Noise     int           // background events per host and minute
	Seed      int64
	Bytes     int64 // if set, stop after the period that brings the bundle to this size
	// EveryDefect puts the sample's five defects and three problems in
	// every period, where the sample has them in its three hours (scaled to
	// the period): a signal-dense fleet. Otherwise each period has one, in
	// turn.
	EveryDefect bool
}

// RenderFleet writes f's bundle under dir, a period at a time so that
// memory is one period's whatever the size: each period's logs go to
// <host>/<period start>/ as rotated and gzipped as in production (the
// current file and two older rotations), every host distinct, time
// advancing from one period to the next, one incident in each period a
// quarter into it (or all of the sample's, with EveryDefect), and the cluster's
// ozone-site.xml beside the first SCM's logs. The same Fleet gives the same
// bytes.
func RenderFleet(dir string, f Fleet) error {
	if f.Datanodes < 1 || f.Periods < 1 || f.Period < time.Hour {
		return fmt.Errorf("render fleet: want datanodes, periods and a period of an hour or more, got %+v", f)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	start := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	cl := scenario.NewCluster(rand.New(rand.NewSource(f.Seed)), 3, 4, f.Datanodes)
	cl.Version = "2.3.0-SNAPSHOT" // as Cluster13: the version every sprinkled defect can happen on
	scripts := All()
	var written int64
	incidents := []string{ // one per period in turn
		"hdds17519/skip-stale",
		"hdds17425/registered-during-finalization",
		"hdds17674/stuck-leader",
		"hdds16839/lost-leadership",
		"hdds16809/force-delete",
		"problems/dn-gc-pause",
		"problems/dn-out-of-space",
		"problems/dn-volume-failed",
	}
	for p := 0; p < f.Periods; p++ {
		from := start.Add(time.Duration(p) * f.Period)
		s := scenario.New(f.Seed+int64(p), from, f.Period, cl)
		if p == 0 {
			s.Site = map[string]string{
				"ozone.scm.ha.raft.server.close.threshold": "15m",
				"ozone.om.service.ids":                     "omservice",
			}
		}
		if f.EveryDefect {
			for _, in := range sampleIncidents() {
				scripts[in.name](s, from.Add(in.at/time.Minute*f.Period/180)) // the sample's offset, scaled from its 180 minutes
			}
		} else {
			scripts[incidents[p%len(incidents)]](s, from.Add(f.Period/4))
		}
		tmp, err := os.MkdirTemp(dir, ".period-")
		if err != nil {
			return err
		}
		err = s.Render(tmp, scenario.Render{Layout: scenario.LayoutFile, Noise: f.Noise, Rotate: true, Gzip: true})
		var n int64
		if err == nil {
			n, err = movePeriod(tmp, dir, from.Format("2006-01-02T15"))
		}
		os.RemoveAll(tmp)
		if err != nil {
			return fmt.Errorf("render fleet: period %d: %w", p, err)
		}
		if written += n; f.Bytes > 0 && written >= f.Bytes {
			break
		}
	}
	return nil
}

// movePeriod moves tmp/<host>/<file> to dir/<host>/<stamp>/<file>, and
// ozone-site.xml to dir/<host>/, and returns the bytes moved.
func movePeriod(tmp, dir, stamp string) (int64, error) {
	hosts, err := os.ReadDir(tmp)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, h := range hosts {
		files, err := os.ReadDir(filepath.Join(tmp, h.Name()))
		if err != nil {
			return n, err
		}
		for _, fe := range files {
			fi, err := fe.Info()
			if err != nil {
				return n, err
			}
			n += fi.Size()
			to := filepath.Join(dir, h.Name(), stamp, fe.Name())
			if fe.Name() == "ozone-site.xml" {
				to = filepath.Join(dir, h.Name(), fe.Name())
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return n, err
			}
			if err := os.Rename(filepath.Join(tmp, h.Name(), fe.Name()), to); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
