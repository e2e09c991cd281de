// Package signatures holds ozdoctor's built-in signatures: one folder per
// problem with its signature file and its test cases (testdata/*.txtar),
// in the format an operator writes (docs/signatures.md). They are
// embedded in the binary.
package signatures

import (
	"embed"
	"io/fs"
)

//go:embed */*.yaml
var files embed.FS

// FS returns the built-in signature files, one folder per signature.
func FS() fs.FS { return files }
