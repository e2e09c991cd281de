package parsers

// Position is where a source stood in one stream when a checkpoint was
// taken: the file by identity (device, inode and a hash of its first
// bytes, which survive renames) and the byte offset and line of the first
// record not yet handed on.
type Position struct {
	Stream      string `json:"stream"` // the source's name for it (path, service)
	Device      uint64 `json:"device,omitempty"`
	Inode       uint64 `json:"inode,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Offset      int64  `json:"offset"`
	Line        int    `json:"line"`
}
