package esstandin

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/bundle"
	"github.com/ozdoctor/ozdoctor/parsers/log4j"
	"github.com/ozdoctor/ozdoctor/report"
)

// LoadBundle indexes the log files of a bundle into index as Filebeat with
// the ECS mapping would: one document per record (folded, as multiline
// settings fold a stack trace) or one per line, with host.name from hosts
// (a bundle path to host map, as a bundle run's coverage gives it; nil
// takes the host that the file's name and directories tell),
// log.file.path the path inside the bundle, log.offset the byte offset,
// labels.ozone_cluster the cluster, and @timestamp the record's time (an
// untimed line takes the time of the record before it, or at the start of a
// file the first record's). It returns the documents indexed.
func LoadBundle(s *Server, index, path string, hosts map[string]string, cluster string, folded bool) ([]map[string]any, error) {
	var all []map[string]any
	_, err := bundle.Walk(context.Background(), []string{path}, bundle.Options{}, func(f bundle.File, rd io.Reader) error {
		if f.Kind == parsers.KindProm || f.Kind == parsers.KindConfig || f.Kind == "" {
			return nil
		}
		data, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		host := hosts[f.Path]
		if hosts == nil {
			host, _, _ = bundle.Classify(f.Path)
		}
		rel := f.Path
		if i := strings.Index(rel, "!/"); i >= 0 {
			rel = rel[i+2:]
		}
		// Record starts and times, from the scanner every mode uses.
		starts := map[int]time.Time{}
		var first time.Time
		sc := log4j.NewScanner(bytes.NewReader(data), log4j.Options{Kind: f.Kind})
		for sc.Next() {
			r := sc.Record()
			starts[r.Line] = r.Time
			if first.IsZero() {
				first = r.Time
			}
		}
		lines := strings.SplitAfter(string(data), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		var docs []map[string]any
		cur, off := first, 0
		for i, l := range lines {
			ts, start := starts[i+1]
			if start && !ts.IsZero() {
				cur = ts
			}
			if folded && !start && len(docs) > 0 {
				d := docs[len(docs)-1]
				d["message"] = d["message"].(string) + l
			} else {
				docs = append(docs, map[string]any{
					"@timestamp": cur.UTC().Format("2006-01-02T15:04:05.000Z"),
					"message":    l,
					"host":       map[string]any{"name": host},
					"log":        map[string]any{"file": map[string]any{"path": rel}, "offset": float64(off)},
					"labels":     map[string]any{"ozone_cluster": cluster},
				})
			}
			off += len(l)
		}
		for _, d := range docs {
			d["message"] = strings.TrimRight(d["message"].(string), "\r\n")
		}
		s.Add(index, docs...)
		all = append(all, docs...)
		return nil
	})
	return all, err
}

// Hosts maps each file of a bundle run's coverage to the host the run
// learned for it, as LoadBundle takes it.
func Hosts(cov report.Coverage) map[string]string {
	hosts := make(map[string]string, cov.Files.Len())
	for f := range cov.Files.All() {
		hosts[f.Path] = f.Host
	}
	return hosts
}
