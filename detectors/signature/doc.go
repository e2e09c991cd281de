// Package signature makes detectors of signature files, the declarative
// format in which a problem is written without Go (docs/signatures.md):
// it reads a file strictly, compiles its expressions and patterns against
// the message catalogue at load, and runs its sequences of steps per join
// key as a detector the engine treats like any other.
package signature
