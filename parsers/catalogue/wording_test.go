package catalogue

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated table of docs/wording-by-release.md")

// wordingDoc is the page the table is generated into.
const wordingDoc = "../../docs/wording-by-release.md"

// wordingReleases are the table's columns: the releases read, a patch
// series standing for its releases where their templates are identical.
var wordingReleases = []string{"1.0.0", "1.1.0", "1.2.x", "1.3.0", "1.4.0", "1.4.1", "2.0.0", "2.1.x", "2.2.0", "master"}

// entryLabels name each entry of Default(), in its order, in the table
// and in the page's list of forms and sources.
var entryLabels = []string{
	"STARTUP_MSG banner",
	"SHUTDOWN_MSG banner",
	"RECEIVED SIGNAL",
	"Ratis ExitUtils.terminate",
	"T01 NodeStateManager",
	"T02 NodeStateManager",
	"T03 pause monitors",
	"T04 RaftServerProxy",
	"T06 RaftServerProxy",
	"T10 StaleNodeHandler",
	"T15 DeadNodeHandler",
	"T16 DeadNodeHandler",
	"T17 SCMDeletedBlockTransactionStatusManager",
	"T18 HealthyReadOnlyNodeHandler",
	"T20 ReadOnlyHealthyToHealthyNodeHandler",
	"T13/B11 pipeline manager",
	"T11 StaleNodeHandler",
	"B14 pipeline manager",
	"B28 SCMDatanodeHeartbeatDispatcher",
	"ServerUtils sanity rules",
	"T31 [ZDU]",
	"T30 [ZDU]",
	"T32 [ZDU]",
	"T32b [ZDU]",
	"T33 [ZDU]",
	"T34 [ZDU]",
	"T35/B27 SCMNodeManager",
	"SCMNodeManager layout check",
	"RegisterEndpointTask [ZDU]",
	"forced finalization [ZDU]",
	"OMStartFinalizeUpgradeRequest [ZDU]",
	"Finalization started.",
	"SCM checkpoint FINALIZATION_STARTED",
	"not all healthy datanodes [ZDU]",
	"SCM peer version [ZDU]",
	"ComponentVersionManager [ZDU]",
	"OMUpgradeFinalizeService [ZDU]",
	"Finalization is done.",
	"Finalization is complete.",
	"SCM checkpoint FINALIZATION_COMPLETE",
	"T40 EmptyContainerHandler",
	"T43 AbstractContainerReportHandler",
	"T42 ReplicationManager (delete)",
	"AbstractContainerReportHandler follower",
	"T44/T45 AbstractContainerReportHandler",
	"T46 KeyValueContainer",
	"T47 dn-container log",
	"T1 ContainerStateMachine",
	"T2 ContainerStateMachine",
	"T4 RaftServerImpl",
	"R1 RaftServerProxy",
	"R9 RaftServerImpl",
	"R8 ClosePipelineCommandHandler",
	"C1 CloseContainerCommandHandler",
	"C3 CloseContainerCommandHandler",
	"dn-container log, group removed",
	"S11 ReplicationManager (close)",
	"N16 OzoneManager",
	"N18 stderr",
	"OzoneManager bootstrapped",
	"N10 OzoneManagerRatisServer",
	"N17 OzoneManager",
	"N4 OzoneManager",
	"L1 add",
	"F.3 remove",
	"L13",
	"L15",
	"L2 RaftServerImpl",
	"A2 OzoneManagerStateMachine",
	"A1/L5/N15 ServerState",
	"L8 RaftServerImpl",
}

// column returns the table column of a release as historicCases name
// them (1.2.0 and 1.2.1 are 1.2.x), -1 when it has none.
func column(release string) int {
	switch release {
	case "1.2.0", "1.2.1":
		release = "1.2.x"
	case "2.1.0", "2.1.1":
		release = "2.1.x"
	}
	return slices.Index(wordingReleases, release)
}

// wordingTable renders the table of forms by entry and release from
// historicCases: a row's form is listed for every release of its range,
// under each entry that recognises its rendering.
func wordingTable(t *testing.T) string {
	entries := Default()
	if len(entryLabels) != len(entries) {
		t.Fatalf("%d entry labels for %d entries", len(entryLabels), len(entries))
	}
	full, err := New()
	if err != nil {
		t.Fatal(err)
	}
	forms := make([][][]string, len(entries))
	for ei := range entries {
		forms[ei] = make([][]string, len(wordingReleases))
	}
	for _, tc := range historicCases() {
		lo, hi, ok := strings.Cut(tc.releases, "-")
		if !ok {
			hi = lo
		}
		from, to := column(lo), column(hi)
		if from < 0 || to < from {
			t.Fatalf("row %s/%s: releases %q are not a range of the table's columns", tc.kind, tc.form, tc.releases)
		}
		matched := false
		for ei, e := range entries {
			if e.Kind != tc.kind {
				continue
			}
			one, err := New(e)
			if err != nil {
				t.Fatal(err)
			}
			hit := false
			for _, r := range caseRecords(t, full, tc) {
				hit = hit || slices.ContainsFunc(one.Match(&r), func(s Signal) bool { return s.Kind == tc.kind })
			}
			if !hit {
				continue
			}
			matched = true
			for i := from; i <= to; i++ {
				if !slices.Contains(forms[ei][i], tc.form) {
					forms[ei][i] = append(forms[ei][i], tc.form)
				}
			}
		}
		if !matched {
			t.Errorf("row %s/%s/%s: no entry of its kind recognises it", tc.kind, tc.form, tc.releases)
		}
	}
	var b strings.Builder
	b.WriteString("| # | kind | entry | " + strings.Join(wordingReleases, " | ") + " |\n")
	b.WriteString("|---|---|---|" + strings.Repeat("---|", len(wordingReleases)) + "\n")
	for ei, e := range entries {
		fmt.Fprintf(&b, "| %d | `%s` | %s |", ei+1, e.Kind, entryLabels[ei])
		for _, fs := range forms[ei] {
			slices.Sort(fs)
			cell := strings.Join(fs, ", ")
			if cell == "" {
				cell = "—"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The table of docs/wording-by-release.md is generated from historicCases,
// which render every form it lists through the scanner and the catalogue:
// the release ranges are kept in one place. The page's list of forms and
// sources names the entries in the same order. go test -run
// TestWordingTable -update rewrites the table.
func TestWordingTable(t *testing.T) {
	const begin, end = "<!-- table: generated from parsers/catalogue/historic_test.go (go test ./parsers/catalogue -run TestWordingTable -update) -->\n", "<!-- end of table -->"
	raw, err := os.ReadFile(wordingDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q ... %q", wordingDoc, begin, end)
	}
	want := wordingTable(t)
	if got := doc[i+len(begin) : j]; got != want {
		if !*update {
			t.Errorf("%s's table differs from historicCases (go test -run TestWordingTable -update rewrites it):\n%s", wordingDoc, lineDiff(got, want))
		} else if err := os.WriteFile(wordingDoc, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	item := regexp.MustCompile("(?m)^(\\d+)\\. \\*\\*`([a-z0-9_]+)`\\*\\* — (.*?)\\. Forms:")
	items := item.FindAllStringSubmatch(doc, -1)
	entries := Default()
	if len(items) != len(entries) {
		t.Fatalf("the list of forms and sources has %d items, the catalogue %d entries", len(items), len(entries))
	}
	for k, m := range items {
		if m[1] != fmt.Sprint(k+1) || m[2] != string(entries[k].Kind) || !strings.HasPrefix(m[3], entryLabels[k]) {
			t.Errorf("item %s of the list of forms and sources is %s (%s), want %d %s (%s)", m[1], m[2], m[3], k+1, entries[k].Kind, entryLabels[k])
		}
	}
}

// lineDiff lists the lines of want missing from got (+) and those of got
// that want lacks (-).
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}
