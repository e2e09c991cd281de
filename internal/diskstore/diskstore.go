// Package diskstore keeps values a run must report but need not hold in
// memory (the coverage of every file read, the findings of alerts that
// resolved) in an unlinked temporary file, as JSON documents one after
// another, and reads each back by its place.
package diskstore

import (
	"encoding/json"
	"fmt"
	"os"
)

// Store is one temporary file. It is gone with the process whatever
// happens: it is unlinked as soon as it is made.
type Store struct {
	f   *os.File
	end int64
	buf []byte
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

// Put writes v and returns its place.
func (s *Store) Put(v any) (Ref, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Ref{}, err
	}
	if _, err := s.f.WriteAt(b, s.end); err != nil {
		return Ref{}, err
	}
	r := Ref{Off: s.end, Size: len(b)}
	s.end += int64(len(b))
	return r, nil
}

// Get reads the value at r into v.
func (s *Store) Get(r Ref, v any) error {
	if cap(s.buf) < r.Size {
		s.buf = make([]byte, r.Size)
	}
	b := s.buf[:r.Size]
	_, err := s.f.ReadAt(b, r.Off)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return fmt.Errorf("reading back its temporary file: %w", err)
	}
	return nil
}

// Close lets go of the file.
func (s *Store) Close() error { return s.f.Close() }
