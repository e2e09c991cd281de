package detectors

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// StampLayout is the one format of times in report text (summaries and
// facts meant to be read): to the second, with the zone the time is in,
// e.g. "2026-08-23 10:20:00 UTC".
const StampLayout = "2006-01-02 15:04:05 MST"

// Stamp renders t for report text.
func Stamp(t time.Time) string { return t.Format(StampLayout) }

// HostKey names a host the same way whether it comes from a file name, a
// message or a banner: its first label, lower case ("DN1.example.com" and
// "dn1" are both "dn1").
func HostKey(h string) string { return strings.ToLower(ShortHost(strings.TrimSpace(h))) }

// InWindow reports whether t lies in [from, to] widened by tol on both
// sides: how detectors correlate lines of hosts whose clocks (or whose
// threads' order of logging) differ by up to tol.
func InWindow(t, from, to time.Time, tol time.Duration) bool {
	return !t.Before(from.Add(-tol)) && !t.After(to.Add(tol))
}

// SortedKeys returns the keys of m, sorted.
func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K { return slices.Sorted(maps.Keys(m)) }

// SortedUnique returns the non-empty strings of xs, sorted, without
// duplicates.
func SortedUnique(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SortDatanodes orders datanodes by host, then UUID.
func SortDatanodes(dns []catalogue.Datanode) {
	slices.SortFunc(dns, func(a, b catalogue.Datanode) int {
		return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.UUID, b.UUID))
	})
}

// ShortSource shortens the file path inside a setting's source label to
// its last two elements, e.g. "ozone-site.xml (/tmp/b/scm1/ozone-site.xml)"
// to "ozone-site.xml (scm1/ozone-site.xml)": the host directory and the
// file name are what a reader needs, and a finding does not depend on where
// the input was unpacked. Labels whose parentheses hold no path (or a
// phrase) are returned as they are.
func ShortSource(src string) string {
	open, end := strings.IndexByte(src, '('), strings.LastIndexByte(src, ')')
	if open < 0 || end < open {
		return src
	}
	inner := strings.ReplaceAll(src[open+1:end], "\\", "/")
	if !strings.Contains(inner, "/") || strings.Contains(inner, " ") {
		return src
	}
	p := strings.Split(strings.TrimRight(inner, "/"), "/")
	if len(p) > 2 {
		p = p[len(p)-2:]
	}
	return src[:open+1] + strings.Join(p, "/") + src[end:]
}
