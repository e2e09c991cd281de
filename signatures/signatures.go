// Package signatures holds ozdoctor's built-in signatures: one folder per
// problem with its signature file and its test cases (testdata/*.txtar),
// in the format an operator writes (docs/signatures.md). They are
// embedded in the binary.
package signatures

import (
	"embed"
	"io/fs"
)

//go:embed */*.yaml */testdata/*.txtar
var files embed.FS

// FS returns the built-in signature files, one folder per signature, with
// their test cases (so that `ozdoctor test` runs them anywhere).
func FS() fs.FS { return files }
