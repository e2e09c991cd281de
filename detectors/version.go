package detectors

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Facts a finding carries about the Ozone version that ran.
const (
	// FactOzoneVersion is the Ozone version (STARTUP_MSG) of the host(s)
	// whose code the defect is in: "2.2.0", or "host=version, ..." when
	// they differ. Absent when no STARTUP_MSG of theirs is in the input.
	FactOzoneVersion = "ozone_version"
	// FactVersionNote explains why a finding is a look-alike: the version
	// that ran cannot have the defect.
	FactVersionNote = "version_note"
)

// versionParts is how many numeric parts of a version count: Apache
// releases are major.minor.patch; vendor builds append their own numbers
// ("2.2.0.7.3.1.400-1") to the Apache release they are built from.
const versionParts = 3

// ParseVersion reads the numeric prefix of an Ozone version as STARTUP_MSG
// prints it: "1.4.1" → [1 4 1], "2.1.0-SNAPSHOT" → [2 1 0],
// "2.2.0.7.3.1.400-1" → [2 2 0] (a vendor build is compared as the Apache
// release it is built from), "0.5.0-beta" → [0 5 0], "1.0" → [1 0 0]. A
// leading "v" or "ozone-" is ignored. It fails when the text does not start
// with a number.
func ParseVersion(s string) ([]int, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "ozone-")
	s = strings.TrimPrefix(s, "v")
	var parts []int
	for len(parts) < versionParts {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 {
			break
		}
		n, _ := strconv.Atoi(s[:i])
		parts = append(parts, n)
		if i == len(s) || s[i] != '.' {
			break
		}
		s = s[i+1:]
	}
	if len(parts) == 0 {
		return nil, false
	}
	for len(parts) < versionParts {
		parts = append(parts, 0)
	}
	return parts, true
}

// CompareVersions compares the numeric prefixes of two versions (see
// ParseVersion): -1, 0 or +1; ok is false when either is not a version.
func CompareVersions(a, b string) (c int, ok bool) {
	va, oka := ParseVersion(a)
	vb, okb := ParseVersion(b)
	if !oka || !okb {
		return 0, false
	}
	return slices.Compare(va, vb), true
}

// VersionInRange reports whether version v is in rng, a range as Doc.Affected
// declares it: "*" (every version), or constraints separated by spaces or
// commas that must all hold, each an operator (>=, >, <=, <, =) and a
// version: ">=2.2.0", ">=1.2.0 <2.1.0"; alternatives, one per release line,
// are joined by "||": ">=1.3.0 <1.4.1 || >=2.0.0 <2.0.1". ok is false when v
// is not a version, rng is empty or rng does not parse.
func VersionInRange(v, rng string) (in, ok bool) {
	rng = strings.TrimSpace(rng)
	if _, okv := ParseVersion(v); !okv || rng == "" {
		return false, false
	}
	if rng == "*" {
		return true, true
	}
	for _, alt := range strings.Split(rng, "||") {
		a, oka := versionInAll(v, alt)
		if !oka {
			return false, false
		}
		in = in || a
	}
	return in, true
}

// versionInAll reports whether v meets every constraint of one alternative.
func versionInAll(v, rng string) (in, ok bool) {
	if strings.TrimSpace(rng) == "" {
		return false, false
	}
	in = true
	for _, c := range strings.FieldsFunc(rng, func(r rune) bool { return r == ' ' || r == ',' }) {
		op := ""
		for _, o := range []string{">=", "<=", "==", ">", "<", "="} {
			if strings.HasPrefix(c, o) {
				op = o
				break
			}
		}
		bound := c[len(op):]
		cmp, okc := CompareVersions(v, bound)
		if !okc {
			return false, false
		}
		switch op {
		case ">=":
			in = in && cmp >= 0
		case ">":
			in = in && cmp > 0
		case "<=":
			in = in && cmp <= 0
		case "<":
			in = in && cmp < 0
		case "=", "==":
			in = in && cmp == 0
		default:
			return false, false
		}
	}
	return in, true
}

// ValidateVersions checks the doc's Affected and FixedIn.
func (d Doc) ValidateVersions() error {
	if d.Affected == "" {
		return nil
	}
	if _, ok := VersionInRange("1.0.0", d.Affected); !ok {
		return fmt.Errorf("%s: Affected %q is not a version range", d.Name, d.Affected)
	}
	for _, v := range d.FixedIn {
		if _, ok := ParseVersion(v); !ok {
			return fmt.Errorf("%s: FixedIn %q is not a version", d.Name, v)
		}
		if in, _ := VersionInRange(v, d.Affected); in {
			return fmt.Errorf("%s: FixedIn %s is inside Affected %q", d.Name, v, d.Affected)
		}
	}
	return nil
}

// HostVersion returns the Ozone version host printed in its STARTUP_MSG,
// matching a FQDN and a short host name alike, or "".
func (id *Identity) HostVersion(host string) string {
	if id == nil || host == "" {
		return ""
	}
	if v := id.versions[host]; v != "" {
		return v
	}
	short := ShortHost(host)
	if v := id.versions[short]; v != "" {
		return v
	}
	// The banner's host may be the FQDN while the finding names the short
	// host: take the version only when one host matches.
	var found string
	for h, v := range id.versions {
		if ShortHost(h) == short {
			if found != "" && found != v {
				return ""
			}
			found = v
		}
	}
	return found
}

// GateVersion states in f the Ozone version that ran on hosts — the hosts
// whose code the doc's defect is in — as Facts[FactOzoneVersion] (unless the
// detector stated it already, e.g. for more hosts) and, when
// every one of them is known and outside d.Affected, reports f as a
// look-alike: the defect cannot happen on that release, so the same lines
// have another cause. A look-alike has low confidence, a severity of at
// most warning, Facts[FactVersionNote] saying why, and its summary says so
// first. Findings of another defect than the doc's (a related condition a
// detector reports apart), withdrawn findings and findings whose hosts'
// versions are not all known only get the version stated.
func (d Doc) GateVersion(f *Finding, id *Identity, hosts ...string) {
	d.GateVersionFunc(f, id.HostVersion, hosts...)
}

// GateVersionFunc is GateVersion with the hosts' versions from version
// ("" when unknown), for a detector that keeps its own.
func (d Doc) GateVersionFunc(f *Finding, version func(host string) string, hosts ...string) {
	known := map[string]string{}
	var order []string
	unknown := false
	for _, h := range hosts {
		if h == "" {
			continue
		}
		if _, dup := known[h]; dup {
			continue
		}
		v := version(h)
		if v == "" {
			unknown = true
			continue
		}
		known[h] = v
		order = append(order, h)
	}
	if len(known) == 0 {
		return
	}
	if f.Facts == nil {
		f.Facts = map[string]string{}
	}
	slices.Sort(order)
	distinct := map[string]bool{}
	for _, v := range known {
		distinct[v] = true
	}
	runs := known[order[0]]
	if len(distinct) > 1 {
		parts := make([]string, len(order))
		for i, h := range order {
			parts[i] = h + "=" + known[h]
		}
		runs = strings.Join(parts, ", ")
	}
	if f.Facts[FactOzoneVersion] == "" {
		f.Facts[FactOzoneVersion] = runs
	}
	if unknown || d.Affected == "" || (f.Defect != "" && f.Defect != d.Defect) || Withdrawn(*f) {
		return
	}
	for _, h := range order {
		if in, ok := VersionInRange(known[h], d.Affected); !ok || in {
			return
		}
	}
	who := order[0] + " runs " + runs
	if len(order) > 1 && len(distinct) == 1 {
		who = strings.Join(order, ", ") + " run " + runs
	} else if len(order) > 1 {
		who = "the hosts run " + runs
	}
	var why string
	switch fixed := d.fixedBelow(known, order); {
	case fixed != "":
		why = fmt.Sprintf("%s is fixed in %s", d.Defect, fixed)
	default:
		why = fmt.Sprintf("%s affects Ozone %s only", d.Defect, d.Affected)
	}
	f.Facts[FactVersionNote] = why + "; " + who + ": the same lines have another cause " +
		"(a backport or vendor patch, a file from another host or release, or another fault)"
	f.Confidence = Low
	if f.Severity > Warning {
		f.Severity = Warning
	}
	f.Summary = "Look-alike of " + d.Defect + " (" + runs + " cannot have it): " + f.Summary
}

// fixedBelow names the releases of FixedIn at or below every host's
// version ("" when none is): the fixes the hosts run.
func (d Doc) fixedBelow(known map[string]string, order []string) string {
	var fixes []string
	for _, fx := range d.FixedIn {
		all := true
		for _, h := range order {
			if c, ok := CompareVersions(known[h], fx); !ok || c < 0 {
				all = false
			}
		}
		if all {
			fixes = append(fixes, fx)
		}
	}
	return strings.Join(fixes, ", ")
}
