package redact

import (
	"fmt"
	"sort"
	"strings"
)

// Summary tells what a run did, without any original: replacements and
// distinct originals per kind, files read, files skipped and why (their
// names redacted), and per keyword a count only.
type Summary struct {
	Files     int   // files read and written
	Lines     int64 // lines read
	Skipped   []Skipped
	beside    string // the summary file written beside a plain output file
	inArchive bool   // the summary was written inside the output archive
}

// Skipped is a file or entry that was not written, or cut short, and why.
type Skipped struct {
	Path   string // redacted
	Reason string // redacted
}

func (s *Summary) problem(r *Redactor, p, reason string) {
	s.Skipped = append(s.Skipped, Skipped{Path: r.Name(p), Reason: r.Name(reason)})
}

// Beside returns the path of the summary written beside a plain output
// file, or "" when it is inside the output.
func (s *Summary) Beside() string { return s.beside }

// Text renders the summary as REDACTION.txt holds it and stderr shows it.
func (s *Summary) Text(r *Redactor) string {
	var b strings.Builder
	b.WriteString("ozdoctor redact: what was replaced (originals are only in the map file, never here)\n\n")
	fmt.Fprintf(&b, "files read: %d (%d lines)\n", s.Files, s.Lines)
	fmt.Fprintf(&b, "files skipped or cut short: %d\n", len(s.Skipped))
	skipped := append([]Skipped(nil), s.Skipped...)
	sort.SliceStable(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	for _, p := range skipped {
		fmt.Fprintf(&b, "  %s: %s\n", p.Path, p.Reason)
	}
	b.WriteString("\nreplacements by kind (replacements, distinct originals in the map):\n")
	counts := r.Counts()
	for _, k := range kinds {
		if k == KindKeyword {
			continue
		}
		fmt.Fprintf(&b, "  %-10s %10d %8d\n", k, counts[k], r.m.Len(k))
	}
	if kc := r.KeywordCounts(); len(kc) > 0 {
		b.WriteString("\nkeywords (--keyword, in the order given):\n")
		for i, n := range kc {
			fmt.Fprintf(&b, "  keyword %d: %d replacements\n", i+1, n)
		}
	}
	b.WriteString("\nkept as they are: datanode UUIDs, cluster, SCM and OM ids, container, pipeline and Raft group ids,\n" +
		"BCSIDs, terms and indexes, timestamps, durations, sizes, versions, thread and logger names,\n" +
		"metric names and values, Ozone's and Hadoop's own service users (hadoop, om, scm, dn, ...),\n" +
		"host names' first labels that are a role word and a number (dn1, om2, scm-1; their domains are replaced).\n")
	return b.String()
}
