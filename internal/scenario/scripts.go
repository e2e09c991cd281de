package scenario

import "time"

// Script adds the lines of one defect occurrence (or one near miss) starting
// at at. Scripts are named "<defect or area>/<variant>", e.g. "hdds17519/dead".
type Script func(s *Scenario, at time.Time)
