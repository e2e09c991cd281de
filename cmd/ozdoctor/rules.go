package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ozdoctor/ozdoctor/dashboards"
	"github.com/ozdoctor/ozdoctor/rules"
)

func newRulesCmd(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Prometheus and Grafana alerting rules and dashboards generated from the detectors",
		Args:  cobra.NoArgs,
	}
	gen := &cobra.Command{
		Use:   "generate",
		Short: "Write rules/ (Prometheus rules, promtool tests, Grafana rules) and dashboards/",
		Long: `Write the alerting rules and dashboards generated from the detectors' documentation:
  <dir>/ozdoctor-sidecar.yml, <dir>/ozone-native.yml    Prometheus rule files
  <dir>/tests/*_test.yml                               promtool unit tests (promtool test rules)
  <dir>/grafana/*.yaml                                 Grafana alerting provisioning files
  <dashboards-dir>/ozdoctor.json                       Grafana dashboard
  <dashboards-dir>/provisioning/dashboards.yaml        Grafana dashboard provider
With --check nothing is written: the command fails if a file differs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			dir, _ := f.GetString("dir")
			dashDir, _ := f.GetString("dashboards-dir")
			check, _ := f.GetBool("check")
			o := rules.DefaultOptions()
			o.RunbookBase, _ = f.GetString("runbook-base")
			o.DatasourceUID, _ = f.GetString("datasource-uid")
			regs, _, err := loadDetectors(v)
			if err != nil {
				return err
			}
			rf, err := rules.Generate(regs, o)
			if err != nil {
				return &exitError{code: exitInternal, err: err}
			}
			df, err := dashboards.Generate(regs, o)
			if err != nil {
				return &exitError{code: exitInternal, err: err}
			}
			all := map[string][]byte{}
			for name, b := range rf {
				all[filepath.Join(dir, filepath.FromSlash(name))] = b
			}
			for name, b := range df {
				all[filepath.Join(dashDir, filepath.FromSlash(name))] = b
			}
			paths := make([]string, 0, len(all))
			for p := range all {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			var stale []string
			for _, p := range paths {
				old, err := os.ReadFile(p)
				if err == nil && bytes.Equal(old, all[p]) {
					continue
				}
				if check {
					stale = append(stale, p)
					continue
				}
				if err := writeFile(p, all[p]); err != nil {
					return &exitError{code: exitInternal, err: err}
				}
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
			if len(stale) > 0 {
				for _, p := range stale {
					fmt.Fprintln(cmd.OutOrStdout(), "differs:", p)
				}
				return &exitError{code: exitFindings, err: fmt.Errorf("%d generated files differ: run ozdoctor rules generate", len(stale))}
			}
			return nil
		},
	}
	gen.Flags().String("dir", "rules", "directory of the rule files")
	gen.Flags().String("dashboards-dir", "dashboards", "directory of the dashboards")
	gen.Flags().Bool("check", false, "write nothing; exit 1 if a generated file differs")
	gen.Flags().String("runbook-base", rules.DefaultOptions().RunbookBase, "URL prefix of the repository's files, followed by a detector's documentation file\n(detectors/<package>/doc.go, signatures/<id>/<id>.yaml) in runbook_url")
	gen.Flags().String("datasource-uid", rules.DefaultOptions().DatasourceUID, "UID of the Prometheus data source in Grafana")
	cmd.AddCommand(gen)
	return cmd
}

// writeFile writes b to p through a temporary file in the same directory.
func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".ozdoctor-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), p)
}
