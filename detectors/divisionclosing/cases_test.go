package divisionclosing_test

import (
	"testing"

	"github.com/ozdoctor/ozdoctor/detectors/detectortest"
	"github.com/ozdoctor/ozdoctor/detectors/divisionclosing"
)

func TestCases(t *testing.T) { detectortest.Run(t, divisionclosing.Registration, "testdata") }
