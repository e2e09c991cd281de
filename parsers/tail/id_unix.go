//go:build unix

package tail

import (
	"os"
	"syscall"
)

// fileID returns the device and inode of a file.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // Dev is int32 on some systems
}
