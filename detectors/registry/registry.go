// Package registry lists every detector ozdoctor runs. A new detector is its
// own package under detectors/ plus one line here.
package registry

import (
	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/detectors/bootstrapexit"
	"github.com/ozdoctor/ozdoctor/detectors/divisionclosing"
	"github.com/ozdoctor/ozdoctor/detectors/olddatanode"
	"github.com/ozdoctor/ozdoctor/detectors/pausestale"
	"github.com/ozdoctor/ozdoctor/detectors/quasiclosedelete"
)

// All returns every detector's registration.
func All() []detectors.Registration {
	return []detectors.Registration{
		pausestale.Registration,
		olddatanode.Registration,
		quasiclosedelete.Registration,
		divisionclosing.Registration,
		bootstrapexit.Registration,
	}
}
