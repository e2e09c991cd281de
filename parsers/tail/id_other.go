//go:build !unix

package tail

import "os"

// fileID returns zeros where the system names no device and inode: files
// are then told apart by their fingerprint alone.
func fileID(os.FileInfo) (dev, ino uint64) { return 0, 0 }
