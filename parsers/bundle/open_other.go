//go:build !unix

package bundle

import "os"

// openFile opens a file on disk to read it.
func openFile(path string) (*os.File, error) { return os.Open(path) }
