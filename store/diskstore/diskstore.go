// Package diskstore keeps values a run must report but need not hold in
// memory (the coverage of every file read, the findings of alerts that
// resolved) in an unlinked temporary file, as JSON documents one after
// another, and reads each back by its place.
package diskstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"slices"
)

// Store is one temporary file. It is gone with the process whatever
// happens: it is unlinked as soon as it is made.
type Store struct {
	f   *os.File
	end int64
}

// Ref is where a value lies in a Store.
type Ref struct {
	Off  int64
	Size int
}

// Open makes a store in dir ("" the system's temporary directory).
func Open(dir string) (*Store, error) {
	f, err := os.CreateTemp(dir, "ozdoctor-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return &Store{f: f}, nil
}

// Put writes v, as Marshal encodes it, and returns its place.
func (s *Store) Put(v any) (Ref, error) {
	refs, err := PutAll(s, []any{v})
	if err != nil {
		return Ref{}, err
	}
	return refs[0], nil
}

// PutAll writes every value of vs, as Marshal encodes them, in one write,
// and returns their places; none is written if one fails.
func PutAll[T any](s *Store, vs []T) ([]Ref, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	refs := make([]Ref, len(vs))
	for i := range vs {
		start := buf.Len()
		if err := enc.Encode(vs[i]); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline, as Marshal drops it
		refs[i] = Ref{Off: s.end + int64(start), Size: buf.Len() - start}
	}
	if _, err := s.f.WriteAt(buf.Bytes(), s.end); err != nil {
		return nil, err
	}
	s.end += int64(buf.Len())
	return refs, nil
}

// Raw returns the JSON of the value at r. Several calls of Raw and Get may
// run at once (not alongside a Put).
func (s *Store) Raw(r Ref) ([]byte, error) {
	b := make([]byte, r.Size)
	if _, err := s.f.ReadAt(b, r.Off); err != nil {
		return nil, fmt.Errorf("reading back its temporary file: %w", err)
	}
	return b, nil
}

// Get reads the value at r into v.
func (s *Store) Get(r Ref, v any) error {
	b, err := s.Raw(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("reading back its temporary file: %w", err)
	}
	return nil
}

// Marshal encodes v as json.Marshal does, but escapes no HTML: the
// encoder around it does if it was told to, as for a slice.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// MarshalList is the MarshalJSON of a list a store holds part of: the n
// values of all as an array, whole, unless err, after they are read, says
// that reading them back failed.
func MarshalList[T any](n int, all iter.Seq[T], err func() error) ([]byte, error) {
	vs := slices.AppendSeq(make([]T, 0, n), all)
	if err := err(); err != nil {
		return nil, err
	}
	return Marshal(vs)
}

// Close lets go of the file.
func (s *Store) Close() error { return s.f.Close() }
