// Package snapshot turns the in-memory state of ozdoctor's engine and
// detectors into versioned bytes and back, so that a restarted daemon
// continues from a checkpoint as if it had never stopped.
//
// It is meant for ozdoctor's own state types, not as a general serializer:
// detectors keep their state in unexported struct fields, so the codec walks
// every field of a struct, exported or not, with reflect (and unsafe to read
// and write unexported fields of addressable values).
//
// # Encoding
//
// The output is JSON: {"format":1,"shape":"<Shape>","state":<value>}. The
// state value is encoded by kind:
//
//   - struct: an object with every field, under its Go name, in declaration
//     order; fields tagged `state:"-"` are left out (and keep the
//     destination's current value on Unmarshal).
//   - pointer: null, or the value pointed to. A pointer reachable twice is
//     an error naming the path, because aliasing cannot be restored; this
//     also rejects cycles. A map reachable twice is written twice and comes
//     back as two maps (maps in ozdoctor's state are shared read-only, as
//     the Attrs of copied signals); a map inside itself (a map type that
//     holds itself) is not supported.
//   - map: null, or a list of [key, value] pairs sorted by encoded key, so the
//     output is deterministic. Keys may be strings, bools, ints, uints, and
//     structs and arrays of those.
//   - slice: null (nil) or a list (empty is kept apart from nil); byte slices
//     as a base64 string. Array: a list of its elements.
//   - string: a JSON string, or {"bytes":"<base64>"} when not valid UTF-8.
//   - ints and uints (including time.Duration): numbers. Floats: the shortest
//     decimal that parses back to the same value, or "NaN", "+Inf", "-Inf".
//   - time.Time: the UTC instant as an RFC 3339 string with nanoseconds; a
//     time in another location is {"utc":..,"local":true} or
//     {"utc":..,"zone":"Europe/Berlin","offset":3600}. The monotonic reading
//     is dropped. A named zone that cannot be loaded on decode becomes a fixed
//     zone with that name and offset. Years outside 0-9999 are refused.
//   - a named type whose pointer implements both encoding.TextMarshaler and
//     encoding.TextUnmarshaler is encoded with those, else one implementing
//     both json.Marshaler and json.Unmarshaler with those.
//   - interface: only nil (null); a non-nil interface is an error.
//   - func, chan, complex and unsafe.Pointer are errors naming the field path,
//     unless the field is tagged `state:"-"`.
//
// The same state always gives byte-identical output, and Marshal, Unmarshal
// into a fresh value, Marshal again gives the same bytes.
//
// Unmarshal refuses a checkpoint of another format or shape with ErrShape,
// so the caller can fall back to a fresh start. Shape hashes what the
// encoding depends on: field names and kinds, recursively (and the type name
// of a time or marshaler type), so adding, renaming or retyping a stored
// field to another kind changes it; renaming a type, or retyping a field
// between types of the same kind (string and a named string), does not.
// Unmarshal leaves the destination unchanged when it fails; when it succeeds,
// a field tagged `state:"-"` keeps the destination's value also below a
// pointer, slice element or map entry that the destination already had.
//
// Limitations: aliasing is detected for pointers, not for maps or slices
// sharing a backing array nor for a pointer to a value that is also stored
// elsewhere by value (such values come back as separate copies). Blank (_)
// fields are not stored. Lists and objects nested deeper than 9000 levels
// (a linked list of 9000 structs) are refused, as encoding/json, which
// validates the envelope, reads no deeper.
package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Format is the version of the envelope and value encoding.
const Format = 1

// ErrShape is returned by Unmarshal for a checkpoint written with another
// format or for another state shape.
var ErrShape = errors.New("snapshot: checkpoint has another format or state shape")

// Marshal encodes the state reachable from v (a non-nil pointer) as JSON.
func Marshal(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("snapshot: Marshal needs a non-nil pointer, got %T", v)
	}
	t := rv.Type().Elem()
	e := &encoder{root: rootName(t), seen: map[ptrKey]struct{}{}}
	e.buf = append(e.buf, `{"format":`...)
	e.buf = strconv.AppendInt(e.buf, Format, 10)
	e.buf = append(e.buf, `,"shape":"`...)
	e.buf = append(e.buf, Shape(v)...)
	e.buf = append(e.buf, `","state":`...)
	if t.Size() > 0 {
		e.seen[ptrKey{rv.UnsafePointer(), rv.Type()}] = struct{}{} // a field pointing back is aliasing
	}
	if err := e.value(rv.Elem()); err != nil {
		return nil, err
	}
	if err := checkType(t); err != nil {
		return nil, err
	}
	e.buf = append(e.buf, '}')
	return e.buf, nil
}

// Unmarshal decodes data into v (a pointer to a value of the same type),
// overwriting the fields it holds; fields tagged `state:"-"` keep their
// current value. On error v is left unchanged.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("snapshot: Unmarshal needs a non-nil pointer, got %T", v)
	}
	var env struct {
		Format *int            `json:"format"`
		Shape  *string         `json:"shape"`
		State  json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if env.Format == nil || env.Shape == nil || env.State == nil {
		return errors.New("snapshot: not a checkpoint: format, shape or state missing")
	}
	if *env.Format != Format {
		return fmt.Errorf("%w: format %d, this binary reads %d", ErrShape, *env.Format, Format)
	}
	if want := Shape(v); *env.Shape != want {
		return fmt.Errorf("%w: shape %q, this binary's state is %q", ErrShape, *env.Shape, want)
	}
	t := rv.Type().Elem()
	if err := checkType(t); err != nil {
		return err
	}
	tmp := reflect.New(t).Elem()
	tmp.Set(rv.Elem())
	d := &decoder{root: rootName(t)}
	if err := d.value(env.State, tmp); err != nil {
		return err
	}
	rv.Elem().Set(tmp)
	return nil
}

// Shape returns a short stable hash of the structure of v's type (or of the
// type v points to): field names and kinds, recursively, leaving out fields
// tagged `state:"-"`.
func Shape(v any) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return "nil"
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := shapes.Load(t); ok {
		return s.(string)
	}
	var b strings.Builder
	describe(&b, t, map[reflect.Type]int{})
	sum := sha256.Sum256([]byte(b.String()))
	s := hex.EncodeToString(sum[:8])
	shapes.Store(t, s)
	return s
}

var shapes sync.Map // reflect.Type → string

// describe writes the structure of t that the encoding depends on.
func describe(b *strings.Builder, t reflect.Type, open map[reflect.Type]int) {
	switch info(t).special {
	case specialTime:
		b.WriteString("time")
		return
	case specialText:
		b.WriteString("text(" + t.PkgPath() + "." + t.Name() + ")")
		return
	case specialJSON:
		b.WriteString("json(" + t.PkgPath() + "." + t.Name() + ")")
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		b.WriteString("*")
		describe(b, t.Elem(), open)
	case reflect.Slice:
		b.WriteString("[]")
		describe(b, t.Elem(), open)
	case reflect.Array:
		b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
		describe(b, t.Elem(), open)
	case reflect.Map:
		b.WriteString("map[")
		describe(b, t.Key(), open)
		b.WriteString("]")
		describe(b, t.Elem(), open)
	case reflect.Struct:
		if depth, ok := open[t]; ok {
			b.WriteString("#" + strconv.Itoa(depth))
			return
		}
		open[t] = len(open)
		b.WriteString("struct{")
		for _, f := range info(t).fields {
			b.WriteString(f.name + " ")
			describe(b, f.typ, open)
			b.WriteString(";")
		}
		b.WriteString("}")
		delete(open, t)
	default:
		b.WriteString(t.Kind().String())
	}
}

// rootName names the top of a path in errors.
func rootName(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

// ---- type information ----

type special uint8

const (
	specialNone special = iota
	specialTime
	specialText
	specialJSON
)

type field struct {
	index int
	name  string
	typ   reflect.Type
	off   uintptr
	key   string // `"name":`
}

type typeInfo struct {
	special special
	fields  []field // structs: the fields that are stored
	skipped bool    // structs: some field is tagged state:"-"
}

var infos sync.Map // reflect.Type → *typeInfo

var (
	timeType            = reflect.TypeFor[time.Time]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

func info(t reflect.Type) *typeInfo {
	if i, ok := infos.Load(t); ok {
		return i.(*typeInfo)
	}
	ti := &typeInfo{}
	pt := reflect.PointerTo(t)
	switch {
	case t.Kind() == reflect.Struct && t.ConvertibleTo(timeType) && t.NumField() == timeType.NumField():
		ti.special = specialTime
	case t.Name() == "" || t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface:
	case promoted(t):
		// A struct embedding, say, a time.Time gets its MarshalText by
		// promotion, which would lose the struct's own fields: walk it.
	case pt.Implements(textMarshalerType) && pt.Implements(textUnmarshalerType):
		ti.special = specialText
	case pt.Implements(jsonMarshalerType) && pt.Implements(jsonUnmarshalerType):
		ti.special = specialJSON
	}
	if ti.special == specialNone && t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name == "_" {
				continue // padding: no state, and names that would repeat
			}
			if f.Tag.Get("state") == "-" {
				ti.skipped = true
				continue
			}
			ti.fields = append(ti.fields, field{
				index: i, name: f.Name, typ: f.Type, off: f.Offset,
				key: strconv.Quote(f.Name) + ":",
			})
		}
	}
	i, _ := infos.LoadOrStore(t, ti)
	return i.(*typeInfo)
}

// promoted reports whether the struct t embeds a field with marshaling
// methods, which t may then only have by promotion.
func promoted(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		for _, ft := range []reflect.Type{f.Type, reflect.PointerTo(f.Type)} {
			if ft.Implements(textMarshalerType) || ft.Implements(textUnmarshalerType) ||
				ft.Implements(jsonMarshalerType) || ft.Implements(jsonUnmarshalerType) {
				return true
			}
		}
	}
	return false
}

// fieldOf returns the field f of the addressable struct v, settable even when
// unexported.
func fieldOf(v reflect.Value, f *field) reflect.Value {
	return reflect.NewAt(f.typ, unsafe.Add(v.Addr().UnsafePointer(), f.off)).Elem()
}

// checkType reports the first unsupported type reachable from t, by a path
// such as `detector.scms[*].ep.nodes`. The result is cached per type.
func checkType(t reflect.Type) error {
	if err, ok := checked.Load(t); ok {
		if err == nil {
			return nil
		}
		return err.(error)
	}
	var err error
	if msg := checkWalk(t, rootName(t), map[reflect.Type]bool{}, false); msg != "" {
		err = errors.New("snapshot: " + msg)
	}
	checked.Store(t, err)
	return err
}

var checked sync.Map // reflect.Type → error

// keyCheck reports why t cannot be a map key, after a path relative to the
// key, or "".
func keyCheck(t reflect.Type) string {
	if msg, ok := keysChecked.Load(t); ok {
		return msg.(string)
	}
	msg := checkWalk(t, "", map[reflect.Type]bool{}, true)
	keysChecked.Store(t, msg)
	return msg
}

var keysChecked sync.Map // reflect.Type → string

func checkWalk(t reflect.Type, path string, open map[reflect.Type]bool, key bool) string {
	ti := info(t)
	if ti.special != specialNone {
		if key && ti.special == specialTime {
			return path + ": time.Time not supported as a map key"
		}
		return ""
	}
	if key {
		switch t.Kind() {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return ""
		case reflect.Array:
			return checkWalk(t.Elem(), path+"[*]", open, true)
		case reflect.Struct:
			if ti.skipped {
				return path + `: state:"-" not supported in a map key`
			}
			for _, f := range ti.fields {
				if msg := checkWalk(f.typ, path+"."+f.name, open, true); msg != "" {
					return msg
				}
			}
			return ""
		}
		return path + ": " + t.String() + " not supported as a map key"
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128, reflect.Invalid:
		return path + ": " + t.Kind().String() + " not supported"
	case reflect.Pointer, reflect.Slice:
		p := path
		if t.Kind() == reflect.Slice {
			p += "[*]"
		}
		return checkWalk(t.Elem(), p, open, false)
	case reflect.Array:
		return checkWalk(t.Elem(), path+"[*]", open, false)
	case reflect.Map:
		if msg := checkWalk(t.Key(), path+"[key]", open, true); msg != "" {
			return msg
		}
		return checkWalk(t.Elem(), path+"[*]", open, false)
	case reflect.Struct:
		if open[t] {
			return ""
		}
		open[t] = true
		defer delete(open, t)
		for _, f := range ti.fields {
			if msg := checkWalk(f.typ, path+"."+f.name, open, false); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// ---- paths ----

type segKind uint8

const (
	segField segKind = iota
	segIndex
	segKey
)

type seg struct {
	kind segKind
	name string // segField; segKey when key is nil
	key  []byte // segKey: the encoded key
	idx  int
}

func renderPath(root string, segs []seg) string {
	var b strings.Builder
	b.WriteString(root)
	for _, s := range segs {
		switch s.kind {
		case segField:
			b.WriteString("." + s.name)
		case segIndex:
			b.WriteString("[" + strconv.Itoa(s.idx) + "]")
		case segKey:
			if s.key != nil {
				b.WriteString("[" + string(s.key) + "]")
			} else {
				b.WriteString("[" + s.name + "]")
			}
		}
	}
	return b.String()
}

// ---- encoding ----

type ptrKey struct {
	p unsafe.Pointer
	t reflect.Type
}

type encoder struct {
	buf   []byte
	root  string
	path  []seg
	seen  map[ptrKey]struct{}
	depth int // of JSON lists and objects
}

// maxDepth bounds the nesting of lists and objects in the state, below the
// limit of encoding/json, which reads the envelope.
const maxDepth = 9000

// open counts n more levels of nesting, and reports an error beyond maxDepth.
func (e *encoder) open(n int) error {
	e.depth += n
	if e.depth > maxDepth {
		return e.errorf("nested deeper than %d", maxDepth)
	}
	return nil
}

func (e *encoder) errorf(format string, args ...any) error {
	return fmt.Errorf("snapshot: %s: %s", renderPath(e.root, e.path), fmt.Sprintf(format, args...))
}

// once records p, a pointer or map of type t, as reached and reports an
// error if it was reached before (for a map: if it is being encoded).
func (e *encoder) once(p unsafe.Pointer, t reflect.Type) error {
	k := ptrKey{p, t}
	if _, ok := e.seen[k]; ok {
		what := "pointer"
		if t.Kind() == reflect.Map {
			what = "map"
		}
		return e.errorf("%s %s reachable twice (aliasing cannot be restored)", what, t)
	}
	e.seen[k] = struct{}{}
	return nil
}

// value encodes the addressable value v.
func (e *encoder) value(v reflect.Value) error {
	t := v.Type()
	ti := info(t)
	switch ti.special {
	case specialTime:
		return e.time(*(*time.Time)(v.Addr().UnsafePointer()))
	case specialText:
		b, err := v.Addr().Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return e.errorf("MarshalText: %v", err)
		}
		e.string(string(b))
		return nil
	case specialJSON:
		b, err := v.Addr().Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return e.errorf("MarshalJSON: %v", err)
		}
		var out bytes.Buffer
		if err := json.Compact(&out, b); err != nil {
			return e.errorf("MarshalJSON: %v", err)
		}
		e.buf = append(e.buf, out.Bytes()...)
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			e.buf = append(e.buf, `"NaN"`...)
		case math.IsInf(f, 1):
			e.buf = append(e.buf, `"+Inf"`...)
		case math.IsInf(f, -1):
			e.buf = append(e.buf, `"-Inf"`...)
		default:
			e.buf = strconv.AppendFloat(e.buf, f, 'g', -1, t.Bits())
		}
	case reflect.String:
		e.string(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if t.Elem().Size() > 0 {
			if err := e.once(v.UnsafePointer(), t); err != nil {
				return err
			}
		}
		return e.value(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.errorf("interface holding %s not supported", v.Elem().Type())
	case reflect.Struct:
		if err := e.open(1); err != nil {
			return err
		}
		e.buf = append(e.buf, '{')
		for i := range ti.fields {
			f := &ti.fields[i]
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = append(e.buf, f.key...)
			e.path = append(e.path, seg{kind: segField, name: f.name})
			if err := e.value(fieldOf(v, f)); err != nil {
				return err
			}
			e.path = e.path[:len(e.path)-1]
		}
		e.buf = append(e.buf, '}')
		e.depth--
	case reflect.Slice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 && info(t.Elem()).special == specialNone {
			e.buf = append(e.buf, '"')
			e.buf = base64.StdEncoding.AppendEncode(e.buf, v.Bytes())
			e.buf = append(e.buf, '"')
			return nil
		}
		return e.list(v)
	case reflect.Array:
		return e.list(v)
	case reflect.Map:
		return e.mapValue(v)
	default:
		return e.errorf("%s not supported", t.Kind())
	}
	return nil
}

func (e *encoder) list(v reflect.Value) error {
	if err := e.open(1); err != nil {
		return err
	}
	defer func() { e.depth-- }()
	e.buf = append(e.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.path = append(e.path, seg{kind: segIndex, idx: i})
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
		e.path = e.path[:len(e.path)-1]
	}
	e.buf = append(e.buf, ']')
	return nil
}

// mapValue writes the entries as [key,value] pairs sorted by encoded key: it
// encodes them in iteration order at the end of the buffer, then rewrites
// that region in key order.
func (e *encoder) mapValue(v reflect.Value) error {
	t := v.Type()
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if msg := keyCheck(t.Key()); msg != "" {
		return fmt.Errorf("snapshot: %s[key]%s", renderPath(e.root, e.path), msg)
	}
	// A map reached twice is encoded twice (signals copied into several
	// places share their Attrs, read-only); only a map inside itself, a
	// cycle, is refused.
	if err := e.once(v.UnsafePointer(), t); err != nil {
		return err
	}
	defer delete(e.seen, ptrKey{v.UnsafePointer(), t})
	if v.Len() == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	if err := e.open(2); err != nil {
		return err
	}
	defer func() { e.depth -= 2 }()
	type entry struct{ k0, k1, v1 int } // key at [k0,k1), value at [k1,v1)
	entries := make([]entry, 0, v.Len())
	start := len(e.buf)
	key := reflect.New(t.Key()).Elem()
	val := reflect.New(t.Elem()).Elem()
	it := v.MapRange()
	for it.Next() {
		key.SetIterKey(it)
		val.SetIterValue(it)
		k0 := len(e.buf)
		e.path = append(e.path, seg{kind: segKey, name: "key"})
		if err := e.value(key); err != nil {
			return err
		}
		k1 := len(e.buf)
		e.path[len(e.path)-1].key = e.buf[k0:k1:k1]
		if err := e.value(val); err != nil {
			return err
		}
		e.path = e.path[:len(e.path)-1]
		entries = append(entries, entry{k0, k1, len(e.buf)})
	}
	region := slices.Clone(e.buf[start:])
	at := func(i int) []byte { return region[i-start:] }
	slices.SortFunc(entries, func(a, b entry) int {
		return bytes.Compare(at(a.k0)[:a.k1-a.k0], at(b.k0)[:b.k1-b.k0])
	})
	e.buf = append(e.buf[:start], '[')
	for i, en := range entries {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, '[')
		e.buf = append(e.buf, at(en.k0)[:en.k1-en.k0]...)
		e.buf = append(e.buf, ',')
		e.buf = append(e.buf, at(en.k1)[:en.v1-en.k1]...)
		e.buf = append(e.buf, ']')
	}
	e.buf = append(e.buf, ']')
	return nil
}

const hexDigits = "0123456789abcdef"

// string writes s as a JSON string, or as {"bytes":"<base64>"} when s is not
// valid UTF-8 (a JSON string cannot carry such bytes exactly).
func (e *encoder) string(s string) {
	if !utf8.ValidString(s) {
		e.buf = append(e.buf, `{"bytes":"`...)
		e.buf = base64.StdEncoding.AppendEncode(e.buf, []byte(s))
		e.buf = append(e.buf, `"}`...)
		return
	}
	e.buf = append(e.buf, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		e.buf = append(e.buf, s[last:i]...)
		switch c {
		case '"', '\\':
			e.buf = append(e.buf, '\\', c)
		case '\n':
			e.buf = append(e.buf, '\\', 'n')
		case '\t':
			e.buf = append(e.buf, '\\', 't')
		case '\r':
			e.buf = append(e.buf, '\\', 'r')
		default:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		last = i + 1
	}
	e.buf = append(e.buf, s[last:]...)
	e.buf = append(e.buf, '"')
}

func (e *encoder) time(t time.Time) error {
	u := t.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return e.errorf("time %s: year outside 0-9999 not supported", u)
	}
	loc := t.Location()
	if loc == time.UTC {
		e.buf = append(e.buf, '"')
		e.buf = u.AppendFormat(e.buf, time.RFC3339Nano)
		e.buf = append(e.buf, '"')
		return nil
	}
	e.buf = append(e.buf, `{"utc":"`...)
	e.buf = u.AppendFormat(e.buf, time.RFC3339Nano)
	e.buf = append(e.buf, '"')
	if loc == time.Local {
		e.buf = append(e.buf, `,"local":true}`...)
		return nil
	}
	_, offset := t.Zone()
	e.buf = append(e.buf, `,"zone":`...)
	e.string(loc.String())
	e.buf = append(e.buf, `,"offset":`...)
	e.buf = strconv.AppendInt(e.buf, int64(offset), 10)
	e.buf = append(e.buf, '}')
	return nil
}

// ---- decoding ----

type decoder struct {
	root  string
	path  []seg
	zones map[string]*time.Location // loaded locations, nil when not found
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("snapshot: %s: %s", renderPath(d.root, d.path), fmt.Sprintf(format, args...))
}

var null = []byte("null")

// value decodes raw into the addressable value v. v starts with the
// destination's current value, so that fields tagged state:"-" keep theirs;
// values reached through pointers, slices and maps are copied before they are
// decoded into, so that the destination is not changed if decoding fails.
func (d *decoder) value(raw []byte, v reflect.Value) error {
	t := v.Type()
	ti := info(t)
	switch ti.special {
	case specialTime:
		tm, err := d.time(raw)
		if err != nil {
			return err
		}
		*(*time.Time)(v.Addr().UnsafePointer()) = tm
		return nil
	case specialText:
		s, err := d.string(raw)
		if err != nil {
			return err
		}
		v.SetZero()
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return d.errorf("UnmarshalText: %v", err)
		}
		return nil
	case specialJSON:
		v.SetZero()
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			return d.errorf("UnmarshalJSON: %v", err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		switch string(raw) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return d.errorf("want a bool, got %.40s", raw)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return d.errorf("want a %s, got %.40s", t.Kind(), raw)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return d.errorf("want a %s, got %.40s", t.Kind(), raw)
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		var f float64
		switch string(raw) {
		case `"NaN"`:
			f = math.NaN()
		case `"+Inf"`:
			f = math.Inf(1)
		case `"-Inf"`:
			f = math.Inf(-1)
		default:
			var err error
			f, err = strconv.ParseFloat(string(raw), t.Bits())
			if err != nil || len(raw) == 0 || raw[0] == '"' {
				return d.errorf("want a %s, got %.40s", t.Kind(), raw)
			}
		}
		v.SetFloat(f)
	case reflect.String:
		s, err := d.string(raw)
		if err != nil {
			return err
		}
		v.SetString(s)
	case reflect.Pointer:
		if bytes.Equal(raw, null) {
			v.SetZero()
			return nil
		}
		p := reflect.New(t.Elem())
		if !v.IsNil() {
			p.Elem().Set(v.Elem())
		}
		if err := d.value(raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Interface:
		if !bytes.Equal(raw, null) {
			return d.errorf("non-nil interface not supported")
		}
		v.SetZero()
	case reflect.Struct:
		members, ok := splitObject(raw)
		if !ok {
			return d.errorf("want an object, got %.40s", raw)
		}
		if len(members) != len(ti.fields) {
			return d.errorf("want %d fields, got %d", len(ti.fields), len(members))
		}
		done := make([]bool, len(ti.fields))
		for _, m := range members {
			name := m.key[1 : len(m.key)-1]
			if !plain(name) {
				s, err := d.string(m.key)
				if err != nil {
					return err
				}
				name = []byte(s)
			}
			i := slices.IndexFunc(ti.fields, func(f field) bool { return f.name == string(name) })
			if i < 0 || done[i] {
				return d.errorf("unknown or repeated field %q", name)
			}
			done[i] = true
			f := &ti.fields[i]
			d.path = append(d.path, seg{kind: segField, name: f.name})
			if err := d.value(m.val, fieldOf(v, f)); err != nil {
				return err
			}
			d.path = d.path[:len(d.path)-1]
		}
	case reflect.Slice:
		if bytes.Equal(raw, null) {
			v.SetZero()
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 && info(t.Elem()).special == specialNone {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return d.errorf("want a base64 string, got %.40s", raw)
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return d.errorf("%v", err)
			}
			n := reflect.MakeSlice(t, len(b), len(b))
			copy(n.Bytes(), b)
			v.Set(n)
			return nil
		}
		items, ok := splitArray(raw)
		if !ok {
			return d.errorf("want a list, got %.40s", raw)
		}
		n := reflect.MakeSlice(t, len(items), len(items))
		reflect.Copy(n, v)
		if err := d.list(items, n); err != nil {
			return err
		}
		v.Set(n)
	case reflect.Array:
		items, ok := splitArray(raw)
		if !ok || len(items) != t.Len() {
			return d.errorf("want a list of %d, got %.40s", t.Len(), raw)
		}
		return d.list(items, v)
	case reflect.Map:
		return d.mapValue(raw, v)
	default:
		return d.errorf("%s not supported", t.Kind())
	}
	return nil
}

func (d *decoder) list(items [][]byte, v reflect.Value) error {
	for i, it := range items {
		d.path = append(d.path, seg{kind: segIndex, idx: i})
		if err := d.value(it, v.Index(i)); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
	}
	return nil
}

func (d *decoder) mapValue(raw []byte, v reflect.Value) error {
	t := v.Type()
	if bytes.Equal(raw, null) {
		v.SetZero()
		return nil
	}
	pairs, ok := splitArray(raw)
	if !ok {
		return d.errorf("want a list of [key,value] pairs, got %.40s", raw)
	}
	m := reflect.MakeMapWithSize(t, len(pairs))
	var p [][]byte
	for _, pair := range pairs {
		p, ok = splitArrayInto(p[:0], pair)
		if !ok || len(p) != 2 {
			return d.errorf("want a [key,value] pair, got %.40s", pair)
		}
		d.path = append(d.path, seg{kind: segKey, key: p[0]})
		key := reflect.New(t.Key()).Elem()
		if err := d.value(p[0], key); err != nil {
			return err
		}
		if m.MapIndex(key).IsValid() {
			return d.errorf("duplicate key")
		}
		val := reflect.New(t.Elem()).Elem()
		if !v.IsNil() {
			if old := v.MapIndex(key); old.IsValid() {
				val.Set(old)
			}
		}
		if err := d.value(p[1], val); err != nil {
			return err
		}
		m.SetMapIndex(key, val)
		d.path = d.path[:len(d.path)-1]
	}
	v.Set(m)
	return nil
}

func (d *decoder) string(raw []byte) (string, error) {
	if len(raw) > 0 && raw[0] == '{' {
		var b struct {
			Bytes *string `json:"bytes"`
		}
		if err := json.Unmarshal(raw, &b); err == nil && b.Bytes != nil {
			s, err := base64.StdEncoding.DecodeString(*b.Bytes)
			if err == nil {
				return string(s), nil
			}
		}
		return "", d.errorf("want a string, got %.40s", raw)
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && plain(raw[1:n-1]) {
		return string(raw[1 : n-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", d.errorf("want a string, got %.40s", raw)
	}
	return s, nil
}

// plain reports whether b needs no unescaping as the inside of a JSON string.
func plain(b []byte) bool {
	ascii := true
	for _, c := range b {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}

// ---- splitting valid JSON ----
//
// The envelope is read with encoding/json, which validates all of it, so the
// functions below only see valid JSON; they still never index out of range.

type member struct{ key, val []byte }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at b[i], or
// -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := valueEnd(b, i)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', ']', '}', ':', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// splitArray returns the elements of the JSON list b, or false if b is not a
// list; an empty list gives a non-nil empty slice.
func splitArray(b []byte) ([][]byte, bool) {
	return splitArrayInto(make([][]byte, 0, 8), b)
}

func splitArrayInto(items [][]byte, b []byte) ([][]byte, bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	i := skipSpace(b, 1)
	if i == len(b)-1 {
		return items, true
	}
	for {
		j := valueEnd(b, i)
		if j < 0 {
			return nil, false
		}
		items = append(items, b[i:j])
		i = skipSpace(b, j)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == ']' {
			return items, i == len(b)-1
		}
		if b[i] != ',' {
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
}

// splitObject returns the members of the JSON object b, keys still quoted, or
// false if b is not an object.
func splitObject(b []byte) ([]member, bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, false
	}
	var members []member
	i := skipSpace(b, 1)
	if i == len(b)-1 {
		return members, true
	}
	for {
		k := valueEnd(b, i)
		if k < 0 || b[i] != '"' {
			return nil, false
		}
		c := skipSpace(b, k)
		if c >= len(b) || b[c] != ':' {
			return nil, false
		}
		v := skipSpace(b, c+1)
		j := valueEnd(b, v)
		if j < 0 {
			return nil, false
		}
		members = append(members, member{b[i:k], b[v:j]})
		i = skipSpace(b, j)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == '}' {
			return members, i == len(b)-1
		}
		if b[i] != ',' {
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
}

func (d *decoder) time(raw []byte) (time.Time, error) {
	var z struct {
		UTC    string `json:"utc"`
		Local  bool   `json:"local"`
		Zone   *string
		Offset int
	}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &z); err != nil {
			return time.Time{}, d.errorf("want a time, got %.40s", raw)
		}
	} else {
		s, err := d.string(raw)
		if err != nil {
			return time.Time{}, d.errorf("want a time, got %.40s", raw)
		}
		z.UTC = s
	}
	t, err := time.Parse(time.RFC3339Nano, z.UTC)
	if err != nil || !strings.HasSuffix(z.UTC, "Z") {
		return time.Time{}, d.errorf("want a UTC RFC 3339 time, got %.40s", z.UTC)
	}
	switch {
	case z.Local:
		return t.In(time.Local), nil
	case z.Zone == nil:
		return t, nil
	}
	loc, ok := d.zones[*z.Zone]
	if !ok {
		if *z.Zone != "" {
			loc, _ = time.LoadLocation(*z.Zone)
		}
		if d.zones == nil {
			d.zones = map[string]*time.Location{}
		}
		d.zones[*z.Zone] = loc
	}
	if loc != nil {
		if _, off := t.In(loc).Zone(); off == z.Offset {
			return t.In(loc), nil
		}
	}
	return t.In(time.FixedZone(*z.Zone, z.Offset)), nil
}
