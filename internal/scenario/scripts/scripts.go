// Package scripts gathers every named script of the scenario library, each
// defect's from beside its detector or signature, and renders the clusters
// that use them together: the shipped sample and the benchmarks' fleets.
package scripts

import (
	hdds16839 "github.com/ozdoctor/ozdoctor/detectors/bootstrapexit/scripts"
	hdds17674 "github.com/ozdoctor/ozdoctor/detectors/divisionclosing/scripts"
	"github.com/ozdoctor/ozdoctor/internal/scenario"
	hdds16809 "github.com/ozdoctor/ozdoctor/signatures/empty-quasi-closed-delete/scripts"
	hdds17425 "github.com/ozdoctor/ozdoctor/signatures/old-datanode-after-finalize/scripts"
	hdds17519 "github.com/ozdoctor/ozdoctor/signatures/scm-pause-stale-nodes/scripts"
)

// All returns every named script.
func All() map[string]scenario.Script {
	all := map[string]scenario.Script{}
	for _, group := range []map[string]scenario.Script{
		hdds17519.Scripts(),
		hdds17425.Scripts(),
		hdds16809.Scripts(),
		hdds17674.Scripts(),
		hdds16839.Scripts(),
		scenario.ProblemScripts(),
	} {
		for name, s := range group {
			all[name] = s
		}
	}
	return all
}
