package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

func newCatalogueCmd(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalogue",
		Short: "List the Ozone messages ozdoctor recognises (signal kind, source, literals)",
		Long: `List the message catalogue: for each entry the signal kind it produces, the Ozone or
Ratis source it mirrors and the literals that select candidate lines, the signatures' own
entries included. With --literals, print only the literals, one a line (the pattern file for
grep -F -f comparisons).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			regs, _, err := loadDetectors(v)
			if err != nil {
				return err
			}
			entries := catalogue.Default()
			for _, r := range regs {
				entries = append(entries, r.Entries...)
			}
			cat, err := catalogue.New(entries...)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if only, _ := cmd.Flags().GetBool("literals"); only {
				for _, l := range cat.Literals() {
					fmt.Fprintln(out, l)
				}
				return nil
			}
			w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "KIND\tSOURCE\tLITERALS")
			for _, e := range cat.Entries() {
				fmt.Fprintf(w, "%s\t%s\t%s\n", e.Kind, e.Source, strings.Join(e.Literals, " | "))
			}
			return w.Flush()
		},
	}
	cmd.Flags().Bool("literals", false, "print only the prefilter literals, one a line")
	return cmd
}
