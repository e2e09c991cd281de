package scenario

// What scripts_test.go, outside the package so that it may run every
// script, shares with the package's own tests.
var (
	TestStart = testStart
	HeaderRes = headerRes
)
