package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func newDetectorsCmd(v *viper.Viper) *cobra.Command {
	return &cobra.Command{
		Use:   "detectors",
		Short: "List the detectors (Go detectors and signatures), by the component whose logs they read",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			regs, _, err := loadDetectors(v)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "COMPONENT\tNAME\tDEFECT\tKIND\tTITLE")
			for _, r := range byComponent(regs) {
				needs := "any"
				if len(r.Doc.Needs) > 0 {
					parts := make([]string, len(r.Doc.Needs))
					for i, n := range r.Doc.Needs {
						parts[i] = string(n)
					}
					needs = strings.Join(parts, "+")
				}
				kind := "go"
				switch {
				case strings.HasPrefix(r.Doc.File, "signatures/"):
					kind = "signature"
				case r.Doc.File != "":
					kind = "signature: " + r.Doc.File // an operator's own
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", needs, r.Doc.Name, r.Doc.Defect, kind, r.Doc.Title)
			}
			return w.Flush()
		},
	}
}

// byComponent orders registrations by the first component they need
// (scm, om, datanode, recon, s3g, then those that need none), keeping the
// registry's order within one.
func byComponent(regs []detectors.Registration) []detectors.Registration {
	rank := func(r detectors.Registration) int {
		if len(r.Doc.Needs) == 0 {
			return len(componentOrder)
		}
		return slices.Index(componentOrder, r.Doc.Needs[0])
	}
	out := slices.Clone(regs)
	slices.SortStableFunc(out, func(a, b detectors.Registration) int { return rank(a) - rank(b) })
	return out
}

var componentOrder = []parsers.Component{parsers.ComponentSCM, parsers.ComponentOM, parsers.ComponentDatanode,
	parsers.ComponentRecon, parsers.ComponentS3G}

func newExplainCmd(v *viper.Viper) *cobra.Command {
	return &cobra.Command{
		Use:   "explain NAME|PACKAGE|HDDS-ID",
		Short: "Explain a detector: the defect, its signature, remediation and false positives",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			regs, _, err := loadDetectors(v)
			if err != nil {
				return err
			}
			for _, r := range regs {
				if strings.EqualFold(r.Doc.Name, args[0]) || strings.EqualFold(r.Doc.Defect, args[0]) ||
					r.Doc.Package != "" && strings.EqualFold(r.Doc.Package, args[0]) {
					fmt.Fprint(cmd.OutOrStdout(), explain(r.Doc))
					return nil
				}
			}
			return usageErrorf("no detector named %q (see ozdoctor detectors)", args[0])
		},
	}
}

var factRef = regexp.MustCompile(`fact \. "(\w+)"`)

// exampleFinding is a critical finding whose entities and facts are
// placeholders, for showing a detector's remediation steps.
func exampleFinding(d detectors.Doc) *detectors.Finding {
	f := &detectors.Finding{Severity: detectors.Critical, Facts: map[string]string{}, Entities: detectors.Entities{
		Hosts:      []string{"<host>"},
		Datanodes:  []catalogue.Datanode{{UUID: "<datanode-uuid>", Host: "<datanode-host>"}},
		Containers: []uint64{1042},
		Pipelines:  []string{"<pipeline-id>"},
		RaftGroups: []string{"<raft-group>"},
		OMNodes:    []string{"<om-node-id>"},
	}}
	for _, step := range d.Remediation {
		for _, m := range factRef.FindAllStringSubmatch(step, -1) {
			f.Facts[m[1]] = "<" + m[1] + ">"
		}
	}
	return f
}

// explain renders a detector's doc, with the remediation of a critical
// finding on example values.
func explain(d detectors.Doc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s\n%s\n\n%s\n\n", d.Defect, d.Title, d.Name, d.Summary)
	fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(d.Explanation))
	b.WriteString("Remediation (filled in for an example critical finding: <...> and container 1042 stand for a real finding's values, and steps that depend on what was seen show one case):\n")
	steps, err := d.Remediate(exampleFinding(d))
	if err != nil {
		steps = []string{err.Error()}
	}
	for i, step := range steps {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, strings.ReplaceAll(step, "\n", "\n     "))
	}
	if len(d.FalsePositives) > 0 {
		b.WriteString("\nStays quiet for:\n")
		for _, fp := range d.FalsePositives {
			fmt.Fprintf(&b, "  - %s\n", fp)
		}
	}
	fmt.Fprintf(&b, "\nResolves: %s\n", d.Resolves)
	var kinds []string
	for _, k := range d.Kinds {
		kinds = append(kinds, string(k))
	}
	fmt.Fprintf(&b, "Signals: %s\n", strings.Join(kinds, ", "))
	if len(d.Metrics) > 0 {
		fmt.Fprintf(&b, "/prom metrics read (scraped by watch, or snapshots in bundles): %s\n", strings.Join(d.Metrics, ", "))
	}
	var needs []string
	for _, c := range d.Needs {
		needs = append(needs, string(c))
	}
	fmt.Fprintf(&b, "Needs logs of: %s\n", strings.Join(needs, ", "))
	if d.Horizon > 0 {
		fmt.Fprintf(&b, "Keeps state about an entity without new signals for: %s\n", d.Horizon)
	}
	if len(d.Options) > 0 {
		b.WriteString("\nOptions (--option NAME=VALUE):\n")
		for _, o := range d.Options {
			fmt.Fprintf(&b, "  %s (%s, default %s", detectors.OptionKey(d, o), o.Kind, o.Default)
			if o.Min != "" {
				fmt.Fprintf(&b, ", at least %s", o.Min)
			}
			fmt.Fprintf(&b, ")\n      %s\n", o.Doc)
		}
	}
	return b.String()
}
