package bundle

import (
	"bytes"
	"fmt"
	"strconv"
)

// format is what sniff recognised: name "" is text (or anything else to
// hand to the callback); "gzip", "xz", "zstd", "bzip2", "tar" and "zip" are
// opened; other names
// are skipped with reason.
type format struct {
	name      string
	container bool
	reason    string
}

// magic numbers of formats that are skipped, with the advice given.
var magics = []struct {
	prefix, name, advice string
}{
	{"7z\xbc\xaf\x27\x1c", "7z", "extract it and name the result as an input"},
	{"\x04\x22\x4d\x18", "lz4", "decompress it (unlz4) and name the result as an input"},
	{"\x1f\x9d", "compress (.Z)", "decompress it (uncompress) and name the result as an input"},
	{"Rar!\x1a\x07", "rar", "extract it and name the result as an input"},
	{"\x7fELF", "ELF executable", "it is not a log"},
	{"\xca\xfe\xba\xbe", "Java class or Mach-O binary", "it is not a log"},
	{"JAVA PROFILE ", "Java heap dump (hprof)", "it is not a log"},
	{"SQLite format 3\x00", "SQLite database", "it is not a log"},
	{"\x89PNG\r\n\x1a\n", "PNG image", "it is not a log"},
	{"\xff\xd8\xff", "JPEG image", "it is not a log"},
	{"%PDF-", "PDF document", "it is not a log"},
	{"PAR1", "Parquet file", "it is not a log"},
	{"\xff\xfe", "UTF-16 text", "convert it to UTF-8 (iconv -f UTF-16) and name the result as an input"},
	{"\xfe\xff", "UTF-16 text", "convert it to UTF-8 (iconv -f UTF-16) and name the result as an input"},
}

// sniff recognises a format from the first bytes of a stream.
func sniff(head []byte) format {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return format{name: "gzip", container: true}
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")), bytes.HasPrefix(head, []byte("PK\x07\x08")):
		return format{name: "zip", container: true}
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return format{name: "xz", container: true}
	case bytes.HasPrefix(head, []byte("\x28\xb5\x2f\xfd")):
		return format{name: "zstd", container: true}
	case isBzip2(head):
		return format{name: "bzip2", container: true}
	case isTar(head):
		return format{name: "tar", container: true}
	}
	for _, m := range magics {
		if bytes.HasPrefix(head, []byte(m.prefix)) {
			return format{name: m.name, reason: m.name + " data skipped: " + m.advice}
		}
	}
	if nul := bytes.Count(head, []byte{0}); len(head) >= 8 && nul*10 > len(head) {
		return format{name: "binary", reason: fmt.Sprintf("binary data skipped (%d of the first %d bytes are NUL): not a text log", nul, len(head))}
	}
	return format{}
}

// isTar reports whether head starts with a tar header: a POSIX/GNU magic
// or, for old V7 archives, a valid header checksum.
func isTar(head []byte) bool {
	if len(head) < 512 || head[0] == 0 {
		return false
	}
	if bytes.Equal(head[257:262], []byte("ustar")) {
		return true
	}
	field := bytes.TrimRight(bytes.TrimLeft(head[148:156], " \x00"), " \x00")
	want, err := strconv.ParseUint(string(field), 8, 32)
	if err != nil || len(field) == 0 {
		return false
	}
	var sum uint64
	for i, c := range head[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += uint64(c)
	}
	return sum == want
}

// isBzip2 reports whether head starts a bzip2 stream: "BZh", the block
// size digit, then a block or end-of-stream magic.
func isBzip2(head []byte) bool {
	if len(head) < 10 || !bytes.HasPrefix(head, []byte("BZh")) || head[3] < '1' || head[3] > '9' {
		return false
	}
	return bytes.Equal(head[4:10], []byte("1AY&SY")) || bytes.Equal(head[4:10], []byte("\x17rE8P\x90"))
}
