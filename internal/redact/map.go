package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ozdoctor/ozdoctor/store/atomicfile"
)

// Kind is what an original names.
type Kind string

// The kinds of what is replaced.
const (
	KindHost      Kind = "host"      // a host's first label ("dn1" of dn1.example.com)
	KindDomain    Kind = "domain"    // the rest of a host name ("example.com")
	KindIPv4      Kind = "ipv4"      // an IPv4 address
	KindIPv6      Kind = "ipv6"      // an IPv6 address
	KindRealm     Kind = "realm"     // a Kerberos realm
	KindUser      Kind = "user"      // a user name
	KindGroup     Kind = "group"     // a group name
	KindVolume    Kind = "volume"    // an Ozone volume
	KindBucket    Kind = "bucket"    // an Ozone bucket
	KindKey       Kind = "key"       // an Ozone key name or path
	KindAccessKey Kind = "accesskey" // an S3 access key id
	KindToken     Kind = "token"     // a block or delegation token
	KindSecret    Kind = "secret"    // the value of a password, secret, key or token setting
	KindPath      Kind = "path"      // a keytab or keystore path
	KindKeyword   Kind = "keyword"   // a word given with --keyword
)

// Kinds lists every kind in the order summaries print them.
var kinds = []Kind{KindHost, KindDomain, KindIPv4, KindIPv6, KindRealm, KindUser, KindGroup,
	KindVolume, KindBucket, KindKey, KindAccessKey, KindToken, KindSecret, KindPath, KindKeyword}

// Kinds returns every kind in the order summaries print them.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// mapVersion is the version of the map file's format.
const mapVersion = 1

// Map holds original → pseudonym for every kind. The same original always
// gets the same pseudonym; pseudonyms are numbered in the order originals
// are first seen. A Map is not safe for concurrent use.
type Map struct {
	fwd   map[Kind]map[string]string
	hosts map[string]string // fwd[KindHost], fwd[KindUser]: looked up per word
	users map[string]string
	rev   map[string]string // pseudonym → original, all kinds
	next  map[Kind]int
	// taken holds every original: a pseudonym is never one of them.
	taken map[string]bool
	dirty bool
	// a filter of the bare words (host short names, users) the map holds:
	// their lengths and first bytes, so that most words skip the lookup
	bareLen   uint64
	bareFirst [256]bool
}

// noteBare adds a host or user original to the bare-word filter.
func (m *Map) noteBare(k Kind, orig string) {
	if (k == KindHost || k == KindUser) && orig != "" {
		if len(orig) < 64 {
			m.bareLen |= 1 << len(orig)
		} else {
			m.bareLen |= 1 // any long word is looked up
		}
		m.bareFirst[orig[0]] = true
	}
}

// maybeBare reports whether w may be a host short name or a user the map holds.
func (m *Map) maybeBare(w []byte) bool {
	if len(w) == 0 || !m.bareFirst[w[0]] {
		return false
	}
	if len(w) < 64 {
		return m.bareLen&(1<<len(w)) != 0
	}
	return m.bareLen&1 != 0
}

// NewMap returns an empty map.
func NewMap() *Map {
	m := &Map{fwd: map[Kind]map[string]string{}, rev: map[string]string{}, next: map[Kind]int{}, taken: map[string]bool{}}
	for _, k := range kinds {
		m.fwd[k] = map[string]string{}
	}
	m.hosts, m.users = m.fwd[KindHost], m.fwd[KindUser]
	return m
}

// mapFile is the JSON form of a Map.
type mapFile struct {
	Version int                        `json:"version"`
	Next    map[Kind]int               `json:"next"`
	Entries map[Kind]map[string]string `json:"entries"`
	Note    string                     `json:"note,omitempty"`
}

// LoadMap reads a map file; a missing file gives an empty map. It fails on
// a file that cannot be read or parsed.
func LoadMap(path string) (*Map, error) {
	m := NewMap()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read map %s: %w", path, err)
	}
	var f mapFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read map %s: %w", path, err)
	}
	if f.Version != mapVersion {
		return nil, fmt.Errorf("read map %s: version %d, want %d", path, f.Version, mapVersion)
	}
	for k, entries := range f.Entries {
		if m.fwd[k] == nil {
			return nil, fmt.Errorf("read map %s: unknown kind %q", path, k)
		}
		for orig, ps := range entries {
			if _, dup := m.rev[ps]; dup {
				return nil, fmt.Errorf("read map %s: pseudonym %q given to two originals", path, ps)
			}
			m.fwd[k][orig] = ps
			m.rev[ps] = orig
			m.taken[orig] = true
			m.noteBare(k, orig)
		}
	}
	for k, n := range f.Next {
		m.next[k] = n
	}
	return m, nil
}

// CheckWritable fails when path cannot be written as a map file: its
// directory missing or not writable, or the file itself not writable.
func CheckWritable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("map %s: %w", path, err)
	}
	fi, err := f.Stat()
	f.Close()
	if err == nil && fi.Size() == 0 {
		// created by this check: leave no empty file behind
		os.Remove(path)
	}
	return err
}

// Save writes the map to path (mode 0600, replaced whole).
func (m *Map) Save(path string) error {
	f := mapFile{Version: mapVersion, Next: m.next, Entries: m.fwd,
		Note: "ozdoctor redact map: original -> pseudonym. It holds the originals: keep it private."}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("write map %s: %w", path, err)
	}
	if err := atomicfile.Write(path, append(data, '\n')); err != nil {
		return fmt.Errorf("write map %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("write map %s: %w", path, err)
	}
	m.dirty = false
	return nil
}

// Len returns how many originals of kind k the map holds.
func (m *Map) Len(k Kind) int { return len(m.fwd[k]) }

// Lookup returns the pseudonym of orig, if it has one.
func (m *Map) Lookup(k Kind, orig string) (string, bool) {
	ps, ok := m.fwd[k][orig]
	return ps, ok
}

// Original returns the original of a pseudonym of any kind.
func (m *Map) Original(ps string) (string, bool) {
	o, ok := m.rev[ps]
	return o, ok
}

// Originals returns the originals of kind k, sorted.
func (m *Map) Originals(k Kind) []string {
	out := make([]string, 0, len(m.fwd[k]))
	for o := range m.fwd[k] {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}

// Pseudonyms returns pseudonym → original of every kind, the longest
// pseudonyms first (then in order), for replacing them back.
func (m *Map) pseudonyms() []string {
	out := make([]string, 0, len(m.rev))
	for ps := range m.rev {
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// Get returns the pseudonym of orig, giving it the next one of its kind
// when it has none.
func (m *Map) Get(k Kind, orig string) string {
	if ps, ok := m.fwd[k][orig]; ok {
		return ps
	}
	m.taken[orig] = true
	var ps string
	for {
		m.next[k]++
		ps = pseudonym(k, m.next[k])
		if !m.taken[ps] {
			if _, used := m.rev[ps]; !used {
				break
			}
		}
	}
	m.fwd[k][orig] = ps
	m.rev[ps] = orig
	m.dirty = true
	m.noteBare(k, orig)
	return ps
}

// pseudonym returns the n-th pseudonym (from 1) of kind k. Each kind has a
// shape of its own that its originals rarely have: reserved names and
// addresses (RFC 2606 .example, RFC 2544 198.18.0.0/15, RFC 3849
// 2001:db8::/32), so the pseudonym of a host stays a valid host name and
// that of an address a valid address of the same family.
func pseudonym(k Kind, n int) string {
	s := strconv.Itoa(n)
	switch k {
	case KindHost:
		return "host-" + s
	case KindDomain:
		return "domain-" + s + ".example"
	case KindIPv4:
		// 198.18.0.1 ... 198.19.255.254, then 100.64.0.0/10 (RFC 6598)
		if n < 2*65536-1 {
			return netip.AddrFrom4([4]byte{198, 18 + byte(n>>16), byte(n >> 8), byte(n)}).String()
		}
		n -= 2*65536 - 1
		return netip.AddrFrom4([4]byte{100, 64 + byte(n>>16&0x3f), byte(n >> 8), byte(n)}).String()
	case KindIPv6:
		var a [16]byte
		a[0], a[1], a[2], a[3] = 0x20, 0x01, 0x0d, 0xb8
		a[12], a[13], a[14], a[15] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
		return netip.AddrFrom16(a).String()
	case KindRealm:
		return "REALM-" + s + ".EXAMPLE"
	case KindUser:
		return "user-" + s
	case KindGroup:
		return "group-" + s
	case KindVolume:
		return "vol-" + s
	case KindBucket:
		return "bucket-" + s
	case KindKey:
		return "key-" + s
	case KindAccessKey:
		return "ACCESSKEY-" + s
	case KindToken:
		return "TOKEN-" + s
	case KindSecret:
		return "SECRET-" + s
	case KindPath:
		return "/redacted/path-" + s
	case KindKeyword:
		return "keyword-" + s
	}
	return strings.ToUpper(string(k)) + "-" + s
}
