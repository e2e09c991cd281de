//lint:file-ignore U1000 the test types' fields are read and written only by reflection (the snapshot codec)

package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin wherever the tests run
)

// Types shaped like a detector's state: unexported fields, maps of pointers,
// a generic bounded container, a TextMarshaler, skipped dependencies.

type level int

func (l level) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("L%d", int(l))), nil }
func (l *level) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "L%d", (*int)(l))
	return err
}

type kind string

type pairKey struct {
	host string
	id   int32
	up   bool
}

type stats struct {
	n     int
	total time.Duration
	first time.Time
	hist  []float64
}

type node struct {
	id    string
	state int
	last  time.Time
	hb    time.Duration
	tags  []string
	next  *node
}

type endpoint struct {
	addr  string
	nodes map[int]*node
	seen  []time.Time
}

// Bounded keeps the last cap values by key, like the detectors' containers.
type Bounded[K comparable, V any] struct {
	cap   int
	order []K
	items map[K]V
}

func (b *Bounded[K, V]) put(k K, v V) {
	if b.items == nil {
		b.items = map[K]V{}
	}
	if _, ok := b.items[k]; !ok {
		b.order = append(b.order, k)
	}
	b.items[k] = v
	if len(b.order) > b.cap {
		delete(b.items, b.order[0])
		b.order = b.order[1:]
	}
}

type config struct{ threshold int }

type detector struct {
	Name   string
	scms   map[string]*endpoint
	byKey  map[pairKey]stats
	count  uint64
	ratio  float64
	f32    float32
	small  int8
	flags  [3]bool
	raw    []byte
	recent Bounded[string, int]
	ptr    **int
	iface  any
	sev    level
	status kind
	kinds  map[kind][]uint16
	emit   func()  `state:"-"`
	cfg    *config `state:"-"`
}

var t0 = time.Date(2026, 12, 3, 7, 54, 25, 123456789, time.UTC)

func sample() *detector {
	n2 := &node{id: "dn2", state: 2, last: t0.Add(time.Second), tags: []string{}}
	three := 3
	p3 := &three
	d := &detector{
		Name: "scm-pause",
		scms: map[string]*endpoint{
			"scm1": {addr: "10.0.0.1:9861", nodes: map[int]*node{
				1: {id: "dn1", last: t0, hb: 30 * time.Second, tags: []string{"a", "b"}, next: n2},
				7: {id: "dn7", state: -1},
			}, seen: []time.Time{t0, t0.Add(time.Minute)}},
			"scm2": {addr: "10.0.0.2", nodes: map[int]*node{}},
			"scm3": nil,
		},
		byKey: map[pairKey]stats{
			{"h1", 1, true}:  {n: 3, total: time.Hour, first: t0, hist: []float64{1.5, math.Inf(1)}},
			{"h1", 2, false}: {n: 1},
			{"h0", -5, true}: {hist: []float64{}},
		},
		count:  math.MaxUint64,
		ratio:  0.1,
		f32:    1.0 / 3,
		small:  -128,
		flags:  [3]bool{true, false, true},
		raw:    []byte{0, 1, 2, 255},
		recent: Bounded[string, int]{cap: 2},
		ptr:    &p3,
		sev:    2,
		status: "STALE",
		kinds:  map[kind][]uint16{"a": {1, 2}, "b": nil},
		emit:   func() {},
		cfg:    &config{threshold: 9},
	}
	d.recent.put("x", 1)
	d.recent.put("y", 2)
	d.recent.put("z", 3)
	return d
}

// zeroSkipped clears the fields Unmarshal does not restore, for DeepEqual.
func zeroSkipped(d *detector) *detector {
	c := *d
	c.emit, c.cfg = nil, nil
	return &c
}

// roundTrip marshals v, unmarshals into a fresh value and marshals again; the
// bytes must be equal. It returns the decoded value.
func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	b1, err := Marshal(v)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if !json.Valid(b1) {
		t.Fatalf("not JSON: %s", b1)
	}
	got := new(T)
	if err := Unmarshal(b1, got); err != nil {
		t.Fatalf("Unmarshal: %v\n%s", err, b1)
	}
	b2, err := Marshal(got)
	if err != nil {
		t.Fatalf("Marshal again: %v", err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("bytes differ after a round trip:\n%s\n%s", b1, b2)
	}
	return got
}

func TestRoundTrip(t *testing.T) {
	type inner struct {
		a int
		B string
	}
	type withPtrs struct {
		p   *inner
		pp  **inner
		nil *inner
		arr [2]*inner
	}
	type maps struct {
		byInt   map[int]inner
		byUint  map[uint8]string
		byBool  map[bool]int
		byArr   map[[2]string]int
		nested  map[string]map[int64][]string
		nilMap  map[string]int
		empty   map[string]int
		ptrVals map[int]*inner
	}
	type scalars struct {
		i   int
		i8  int8
		i16 int16
		i32 int32
		i64 int64
		u   uint
		u8  uint8
		u16 uint16
		u32 uint32
		u64 uint64
		up  uintptr
		f32 float32
		f64 float64
		b   bool
		s   string
		d   time.Duration
	}
	x := &inner{1, "x"}
	cases := []struct {
		name string
		v    any
	}{
		{"detector", zeroSkipped(sample())},
		{"pointers", &withPtrs{p: &inner{1, "a"}, pp: &x, arr: [2]*inner{nil, {2, "b"}}}},
		{"maps", &maps{
			byInt:   map[int]inner{-1: {1, "a"}, 10: {2, "b"}, 2: {}},
			byUint:  map[uint8]string{255: "max", 0: ""},
			byBool:  map[bool]int{true: 1, false: 0},
			byArr:   map[[2]string]int{{"a", "b"}: 1, {"", ""}: 2},
			nested:  map[string]map[int64][]string{"a": {1: nil, 2: {}}, "b": nil, "c": {}},
			empty:   map[string]int{},
			ptrVals: map[int]*inner{1: {1, "p"}, 2: nil},
		}},
		{"scalars", &scalars{math.MinInt, math.MinInt8, math.MaxInt16, math.MinInt32, math.MaxInt64,
			math.MaxUint, math.MaxUint8, 7, math.MaxUint32, math.MaxUint64, 12345,
			math.MaxFloat32, math.SmallestNonzeroFloat64, true, "quote\" back\\ nl\n tab\t nul\x00 é 🙂 \u2028", -time.Nanosecond}},
		{"blank fields", &struct {
			a int
			_ int
			_ string
			b int
		}{a: 1, b: 2}},
		{"invalid utf8", &struct{ s, t string }{"\xff\xfe ok", "a\x80"}},
		{"empty", &struct{}{}},
		{"slice root", &[]int{1, 2}},
		{"map root", &map[string]int{"a": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b1, err := Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			got := reflect.New(reflect.TypeOf(c.v).Elem())
			if err := Unmarshal(b1, got.Interface()); err != nil {
				t.Fatalf("Unmarshal: %v\n%s", err, b1)
			}
			if !reflect.DeepEqual(got.Interface(), c.v) {
				t.Errorf("values differ:\n got %+v\nwant %+v\n%s", got.Elem(), reflect.ValueOf(c.v).Elem(), b1)
			}
			b2, err := Marshal(got.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b1, b2) {
				t.Errorf("bytes differ:\n%s\n%s", b1, b2)
			}
		})
	}
}

// window is stored with its own MarshalJSON, which keeps only what matters.
type window struct {
	from, to int
	cache    []int // derived from from and to
}

func (w window) MarshalJSON() ([]byte, error) { return json.Marshal([2]int{w.from, w.to}) }
func (w *window) UnmarshalJSON(b []byte) error {
	var a [2]int
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*w = window{from: a[0], to: a[1]}
	return nil
}

func TestMarshalers(t *testing.T) {
	v := &struct {
		w  window
		ws map[level]window
	}{window{1, 2, []int{1}}, map[level]window{3: {4, 5, nil}}}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"state":{"w":[1,2],"ws":[["L3",[4,5]]]}`) {
		t.Errorf("got %s", b)
	}
	got := roundTrip(t, v)
	if got.w.from != 1 || got.w.to != 2 || got.w.cache != nil || got.ws[3].to != 5 {
		t.Errorf("got %+v", got)
	}
}

// stamped gets MarshalText from time.Time by promotion; its own field must
// not be lost.
type stamped struct {
	time.Time
	n int
}

func TestPromotedMarshalerIgnored(t *testing.T) {
	v := &struct{ s stamped }{stamped{t0, 5}}
	if got := roundTrip(t, v); !reflect.DeepEqual(got, v) {
		t.Errorf("got %+v, want %+v", got, v)
	}
}

func TestEnvelope(t *testing.T) {
	b, err := Marshal(&struct{ a int }{5})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":1,"shape":"` + Shape(&struct{ a int }{}) + `","state":{"a":5}}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestNilVersusEmpty(t *testing.T) {
	type s struct {
		ns, es []int
		nb, eb []byte
		nm, em map[string]int
	}
	v := &s{es: []int{}, eb: []byte{}, em: map[string]int{}}
	got := roundTrip(t, v)
	if got.ns != nil || got.nb != nil || got.nm != nil {
		t.Errorf("nil became non-nil: %#v", got)
	}
	if got.es == nil || got.eb == nil || got.em == nil {
		t.Errorf("empty became nil: %#v", got)
	}
}

func TestFloatsExact(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 0.1, 1e21, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Nextafter(1, 2)}
	type fs struct {
		f64 []float64
		f32 []float32
	}
	v := &fs{f64: vals}
	for _, f := range vals {
		v.f32 = append(v.f32, float32(f))
	}
	v.f32 = append(v.f32, math.SmallestNonzeroFloat32, math.MaxFloat32, math.Nextafter32(1, 2))
	got := roundTrip(t, v)
	for i, f := range v.f64 {
		if math.Float64bits(f) != math.Float64bits(got.f64[i]) {
			t.Errorf("f64[%d]: %v became %v", i, f, got.f64[i])
		}
	}
	for i, f := range v.f32 {
		if math.Float32bits(f) != math.Float32bits(got.f32[i]) {
			t.Errorf("f32[%d]: %v became %v", i, f, got.f32[i])
		}
	}
}

func TestTime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now() // carries a monotonic reading
	cases := []struct {
		name string
		in   time.Time
		zone string
	}{
		{"zero", time.Time{}, "UTC"},
		{"utc", t0, "UTC"},
		{"monotonic", now, "Local"},
		{"monotonic utc", now.UTC(), "UTC"},
		{"local", t0.Local(), "Local"},
		{"berlin summer", time.Date(2026, 7, 1, 12, 0, 0, 1, berlin), "Europe/Berlin"},
		{"berlin winter", time.Date(2026, 1, 1, 12, 0, 0, 0, berlin), "Europe/Berlin"},
		{"fixed", t0.In(time.FixedZone("IST", 5*3600+1800)), "IST"},
		{"fixed unnamed", t0.In(time.FixedZone("", -3600)), ""},
		{"fixed named like a zone", t0.In(time.FixedZone("Europe/Berlin", 7)), "Europe/Berlin"},
		{"year 0", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), "UTC"},
		{"year 9999", time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), "UTC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &struct{ t time.Time }{c.in}
			got := roundTrip(t, v).t
			if !got.Equal(c.in) {
				t.Errorf("instant %v became %v", c.in, got)
			}
			if got.Location().String() != c.zone {
				t.Errorf("zone %q, want %q", got.Location(), c.zone)
			}
			_, o1 := got.Zone()
			_, o2 := c.in.Zone()
			if o1 != o2 {
				t.Errorf("offset %d, want %d", o1, o2)
			}
			if got.String() != c.in.Round(0).String() {
				t.Errorf("%s became %s", c.in.Round(0), got)
			}
			if c.in.Location() == time.UTC && !reflect.DeepEqual(got, c.in.Round(0)) {
				t.Errorf("not DeepEqual: %#v %#v", got, c.in.Round(0))
			}
		})
	}
	_, err = Marshal(&struct{ t time.Time }{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err == nil || !strings.Contains(err.Error(), "struct { t time.Time }.t: time") {
		t.Errorf("year 10000: err = %v", err)
	}
}

type selfRef struct{ self *selfRef }

func backToRoot() *selfRef {
	r := &selfRef{}
	r.self = r
	return r
}

func TestAliasing(t *testing.T) {
	shared := &node{id: "x"}
	m := map[string]int{}
	cyc := &node{id: "c"}
	cyc.next = cyc
	type two struct {
		a, b *node
		m1   map[string]int
		m2   map[string]int
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"pointer", &two{a: shared, b: shared}, "snapshot: two.b: pointer *snapshot.node reachable twice"},
		{"in map", &struct{ m map[int]*node }{map[int]*node{1: shared, 2: shared}}, "reachable twice"},
		{"nested", &two{a: &node{next: shared}, b: &node{next: shared}}, "two.b.next: pointer"},
		{"cycle", &two{a: cyc}, "two.a.next: pointer *snapshot.node reachable twice"},
		{"back to the root", backToRoot(), "snapshot: selfRef.self: pointer *snapshot.selfRef reachable twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Marshal(c.v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	// A map shared read-only by two fields is written twice and comes back
	// as two equal maps.
	m["k"] = 1
	data, err := Marshal(&two{m1: m, m2: m})
	if err != nil {
		t.Fatalf("shared map: %v", err)
	}
	var back two
	if err := Unmarshal(data, &back); err != nil || back.m1["k"] != 1 || back.m2["k"] != 1 {
		t.Errorf("shared map back: %v %v", back, err)
	}
	// Distinct pointers to zero-sized values share an address; not aliasing.
	type empty struct{}
	if _, err := Marshal(&struct{ a, b *empty }{&empty{}, &empty{}}); err != nil {
		t.Errorf("zero-sized pointees: %v", err)
	}
}

func TestUnsupported(t *testing.T) {
	type ep struct {
		addr  string
		nodes func()
	}
	type scm struct{ ep ep }
	type detector struct{ scms map[string]scm }
	type withChan struct{ cs []chan int }
	type badKey struct{ m map[float64]int }
	type timeKey struct{ m map[time.Time]int }
	type skippedKey struct {
		m map[struct {
			a int
			b int `state:"-"`
		}]int
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"func in map value", &detector{map[string]scm{"scm1": {ep{addr: "a"}}}},
			`snapshot: detector.scms["scm1"].ep.nodes: func not supported`},
		{"func never reached", &detector{}, `snapshot: detector.scms[*].ep.nodes: func not supported`},
		{"chan in empty slice", &withChan{}, `snapshot: withChan.cs[*]: chan not supported`},
		{"complex", &struct{ c complex128 }{}, `.c: complex128 not supported`},
		{"interface", &struct{ i any }{i: 3}, `.i: interface holding int not supported`},
		{"float key", &badKey{map[float64]int{1: 1}}, `badKey.m[key]: float64 not supported as a map key`},
		{"float key, nil map", &badKey{}, `badKey.m[key]: float64 not supported as a map key`},
		{"time key", &timeKey{}, `timeKey.m[key]: time.Time not supported as a map key`},
		{"skip in key", &skippedKey{}, `not supported in a map key`},
		{"nil pointer", (*detector)(nil), "non-nil pointer"},
		{"not a pointer", detector{}, "non-nil pointer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Marshal(c.v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	// Tagged, the same fields are fine.
	type ok struct {
		f func()          `state:"-"`
		c chan int        `state:"-"`
		i any             `state:"-"`
		m map[float64]int `state:"-"`
		n int
	}
	if _, err := Marshal(&ok{f: func() {}, c: make(chan int), i: 1, m: map[float64]int{1: 1}, n: 1}); err != nil {
		t.Error(err)
	}
	// A nil interface is stored as null.
	roundTrip(t, &struct{ i any }{})
}

func TestSkipKeepsCurrentValue(t *testing.T) {
	src := sample()
	b, err := Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config{threshold: 42}
	called := false
	dst := &detector{cfg: cfg, emit: func() { called = true }, count: 7}
	if err := Unmarshal(b, dst); err != nil {
		t.Fatal(err)
	}
	if dst.cfg != cfg {
		t.Errorf("cfg replaced: %+v", dst.cfg)
	}
	dst.emit()
	if !called {
		t.Error("emit replaced")
	}
	if dst.count != src.count {
		t.Errorf("count %d, want %d", dst.count, src.count)
	}

	// Nested skipped fields keep theirs where the destination has a value
	// at the same place (pointer, slice index, map key).
	type item struct {
		n     int
		cache *config `state:"-"`
	}
	type holder struct {
		p  *item
		s  []item
		m  map[string]item
		mp map[string]*item
	}
	c1, c2, c3, c4 := &config{1}, &config{2}, &config{3}, &config{4}
	from := &holder{p: &item{n: 1}, s: []item{{n: 2}, {n: 3}}, m: map[string]item{"a": {n: 4}, "b": {n: 5}},
		mp: map[string]*item{"a": {n: 6}}}
	b, err = Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	oldP := &item{n: 9, cache: c1}
	to := &holder{p: oldP, s: []item{{cache: c2}}, m: map[string]item{"a": {cache: c3}, "z": {}},
		mp: map[string]*item{"a": {cache: c4}}}
	if err := Unmarshal(b, to); err != nil {
		t.Fatal(err)
	}
	want := &holder{p: &item{n: 1, cache: c1}, s: []item{{n: 2, cache: c2}, {n: 3}},
		m: map[string]item{"a": {n: 4, cache: c3}, "b": {n: 5}}, mp: map[string]*item{"a": {n: 6, cache: c4}}}
	if !reflect.DeepEqual(to, want) {
		t.Errorf("got %+v\nwant %+v", to, want)
	}
	if oldP.n != 9 {
		t.Error("Unmarshal wrote through the destination's old pointer")
	}
}

func TestUnmarshalErrorLeavesValue(t *testing.T) {
	b, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	// Break a value deep inside: the last node's id becomes a number.
	bad := bytes.Replace(b, []byte(`"id":"dn7"`), []byte(`"id":7`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("test data not found")
	}
	dst := sample()
	dst.count = 1
	before, _ := Marshal(dst)
	err = Unmarshal(bad, dst)
	if err == nil || !strings.Contains(err.Error(), `detector.scms["scm1"].nodes[7].id: want a string`) {
		t.Errorf("err = %v", err)
	}
	after, _ := Marshal(dst)
	if !bytes.Equal(before, after) {
		t.Error("a failed Unmarshal changed the destination")
	}
}

type shapeA struct {
	a int
	b []string
	c map[string]*shapeA
}
type shapeRenamedType struct {
	a int
	b []string
	c map[string]*shapeRenamedType
}
type shapeAdded struct {
	a int
	b []string
	c map[string]*shapeAdded
	d bool
}
type shapeRenamed struct {
	a int
	B []string
	c map[string]*shapeRenamed
}
type shapeRetyped struct {
	a int64
	b []string
	c map[string]*shapeRetyped
}
type shapeElemRetyped struct {
	a int
	b []kind
	c map[string]*shapeElemRetyped
}
type shapeSkipAdded struct {
	a int
	b []string
	c map[string]*shapeSkipAdded
	x func() `state:"-"`
}

func TestShape(t *testing.T) {
	base := Shape(&shapeA{})
	if len(base) != 16 || Shape(shapeA{}) != base {
		t.Fatalf("Shape = %q; of a value %q", base, Shape(shapeA{}))
	}
	same := map[string]any{"renamed type": &shapeRenamedType{}, "skipped field added": &shapeSkipAdded{}}
	for name, v := range same {
		if Shape(v) != base {
			t.Errorf("%s: shape changed", name)
		}
	}
	differ := map[string]any{"added": &shapeAdded{}, "renamed": &shapeRenamed{}, "retyped": &shapeRetyped{}}
	// A named string type is stored as a string: same shape.
	if Shape(&shapeElemRetyped{}) != base {
		t.Error("a named string type should have the shape of string")
	}
	data, err := Marshal(&shapeA{a: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range differ {
		if Shape(v) == base {
			t.Errorf("%s: shape unchanged", name)
		}
		err := Unmarshal(data, v)
		if !errors.Is(err, ErrShape) {
			t.Errorf("%s: Unmarshal err = %v, want ErrShape", name, err)
		}
	}
	// Same shape: readable.
	var r shapeRenamedType
	if err := Unmarshal(data, &r); err != nil || r.a != 1 {
		t.Errorf("renamed type: %v %+v", err, r)
	}
	// Another format.
	other := bytes.Replace(data, []byte(`"format":1`), []byte(`"format":2`), 1)
	if err := Unmarshal(other, &shapeA{}); !errors.Is(err, ErrShape) {
		t.Errorf("format 2: err = %v, want ErrShape", err)
	}
	// Not a checkpoint at all: an error, but not ErrShape.
	for _, junk := range []string{"", "{}", `{"format":1}`, "[1]", "null"} {
		if err := Unmarshal([]byte(junk), &shapeA{}); err == nil || errors.Is(err, ErrShape) {
			t.Errorf("%q: err = %v", junk, err)
		}
	}
	// Generic instantiations differ by their type arguments' structure.
	if Shape(&Bounded[string, int]{}) == Shape(&Bounded[string, string]{}) {
		t.Error("Bounded[string,int] and Bounded[string,string] have the same shape")
	}
}

func TestDeterminism(t *testing.T) {
	v := zeroSkipped(sample())
	for i := range 200 {
		v.byKey[pairKey{fmt.Sprint("h", i%7), int32(i), i%2 == 0}] = stats{n: i}
		v.kinds[kind(fmt.Sprint(i))] = []uint16{uint16(i)}
	}
	first, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, first) {
			t.Fatal("Marshal gave different bytes for the same state")
		}
	}
}

// randomDetector builds a random state from r, for the property test.
func randomDetector(r *rand.Rand) *detector {
	str := func() string {
		const alphabet = "ab\"\\\n\x00é🙂\xff"
		rs := []rune(alphabet)
		n := r.IntN(6)
		var b strings.Builder
		for range n {
			if r.IntN(20) == 0 {
				b.WriteByte(byte(r.IntN(256)))
			} else {
				b.WriteRune(rs[r.IntN(len(rs))])
			}
		}
		return b.String()
	}
	tm := func() time.Time {
		if r.IntN(5) == 0 {
			return time.Time{}
		}
		return time.Unix(r.Int64N(1<<35)-1<<34, r.Int64N(1e9)).UTC()
	}
	f64 := func() float64 {
		switch r.IntN(6) {
		case 0:
			return math.Inf(1 - 2*r.IntN(2))
		case 1:
			return math.Float64frombits(r.Uint64() &^ (0x7ff << 52)) // finite
		default:
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
	}
	d := &detector{Name: str(), count: r.Uint64(), ratio: f64(), f32: float32(r.NormFloat64()),
		small: int8(r.IntN(256) - 128), sev: level(r.IntN(5)), status: kind(str())}
	if r.IntN(3) > 0 {
		d.scms = map[string]*endpoint{}
		for range r.IntN(5) {
			if r.IntN(5) == 0 {
				d.scms[str()] = nil
				continue
			}
			ep := &endpoint{addr: str()}
			if r.IntN(4) > 0 {
				ep.nodes = map[int]*node{}
				for range r.IntN(6) {
					var prev *node
					for range r.IntN(3) + 1 {
						n := &node{id: str(), state: r.IntN(7) - 3, last: tm(), hb: time.Duration(r.Int64()), next: prev}
						if r.IntN(2) == 0 {
							n.tags = make([]string, r.IntN(3))
							for i := range n.tags {
								n.tags[i] = str()
							}
						}
						prev = n
					}
					ep.nodes[r.IntN(1000)-500] = prev
				}
			}
			for range r.IntN(3) {
				ep.seen = append(ep.seen, tm())
			}
			d.scms[str()] = ep
		}
	}
	if r.IntN(3) > 0 {
		d.byKey = map[pairKey]stats{}
		for range r.IntN(8) {
			s := stats{n: r.Int(), total: time.Duration(r.Int64()), first: tm()}
			if r.IntN(3) > 0 {
				s.hist = make([]float64, r.IntN(4))
				for i := range s.hist {
					s.hist[i] = f64()
				}
			}
			d.byKey[pairKey{str(), r.Int32(), r.IntN(2) == 0}] = s
		}
	}
	for i := range d.flags {
		d.flags[i] = r.IntN(2) == 0
	}
	if r.IntN(3) > 0 {
		d.raw = make([]byte, r.IntN(10))
		for i := range d.raw {
			d.raw[i] = byte(r.IntN(256))
		}
	}
	d.recent.cap = r.IntN(4) + 1
	for range r.IntN(8) {
		d.recent.put(str(), r.Int())
	}
	if r.IntN(2) == 0 {
		n := r.Int()
		p := &n
		d.ptr = &p
	}
	if r.IntN(2) == 0 {
		d.kinds = map[kind][]uint16{}
		for range r.IntN(4) {
			d.kinds[kind(str())] = []uint16{uint16(r.IntN(1 << 16))}
		}
	}
	return d
}

// TestProperty: for random states, Marshal → Unmarshal into a fresh value →
// Marshal gives the same bytes, and the values are DeepEqual.
func TestProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		v := randomDetector(r)
		b1, err := Marshal(v)
		if err != nil {
			t.Fatalf("#%d: %v", i, err)
		}
		if !json.Valid(b1) {
			t.Fatalf("#%d: not JSON: %s", i, b1)
		}
		got := new(detector)
		if err := Unmarshal(b1, got); err != nil {
			t.Fatalf("#%d: %v\n%s", i, err, b1)
		}
		b2, err := Marshal(got)
		if err != nil {
			t.Fatalf("#%d: %v", i, err)
		}
		if !bytes.Equal(b1, b2) {
			t.Fatalf("#%d: bytes differ:\n%s\n%s", i, b1, b2)
		}
		if !reflect.DeepEqual(got, v) {
			t.Fatalf("#%d: values differ:\n%+v\n%+v", i, got, v)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		b, err := Marshal(randomDetector(r))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	b, err := Marshal(zeroSkipped(sample()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	shape := Shape(&detector{})
	for _, s := range []string{"", "null", "{}", `{"format":1}`, `{"format":1,"shape":"` + shape + `","state":null}`,
		`{"format":1,"shape":"` + shape + `","state":{"Name":1}}`,
		`{"format":1,"shape":"` + shape + `","state":[[1,2]]}`,
		`{"format":1,"shape":"` + shape + `","state":{"scms":[["a",{"addr":"x","nodes":[[1,{"id":"x"}]],"seen":["2026-01-01T00:00:00Z"]}]]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d detector
		if err := Unmarshal(data, &d); err != nil {
			return
		}
		// What decodes must encode again, and to a stable form.
		b1, err := Marshal(&d)
		if err != nil {
			t.Fatalf("decoded state does not encode: %v", err)
		}
		var d2 detector
		if err := Unmarshal(b1, &d2); err != nil {
			t.Fatalf("re-encoded state does not decode: %v\n%s", err, b1)
		}
		b2, err := Marshal(&d2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("unstable: %v\n%s\n%s", err, b1, b2)
		}
	})
}

// bigState has about 10k entries in each of its maps: 10k nodes, 10k keyed
// stats and a bounded container of 10k.
func bigState() *detector {
	d := &detector{scms: map[string]*endpoint{}, byKey: map[pairKey]stats{}, recent: Bounded[string, int]{cap: 10000}}
	for s := range 10 {
		ep := &endpoint{addr: fmt.Sprint("scm", s), nodes: map[int]*node{}}
		for i := range 1000 {
			ep.nodes[s*1000+i] = &node{id: fmt.Sprint("dn-", s, "-", i), state: i % 4, last: t0.Add(time.Duration(i) * time.Second),
				hb: 30 * time.Second, tags: []string{"rack1", "ssd"}}
		}
		d.scms[ep.addr] = ep
	}
	for i := range 10000 {
		d.byKey[pairKey{fmt.Sprint("h", i%50), int32(i), i%2 == 0}] = stats{n: i, total: time.Duration(i), first: t0, hist: []float64{float64(i) / 3}}
		d.recent.put(fmt.Sprint("k", i), i)
	}
	return d
}

func BenchmarkMarshal(b *testing.B) {
	d := bigState()
	out, err := Marshal(d)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	data, err := Marshal(bigState())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var d detector
		if err := Unmarshal(data, &d); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDepth(t *testing.T) {
	chain := func(n int) *node {
		var head *node
		for i := range n {
			head = &node{state: i, next: head}
		}
		return head
	}
	v := &struct{ head *node }{chain(1000)}
	if got := roundTrip(t, v); !reflect.DeepEqual(got, v) {
		t.Error("a chain of 1000 nodes changed")
	}
	_, err := Marshal(&struct{ head *node }{chain(maxDepth + 1)})
	if err == nil || !strings.Contains(err.Error(), "nested deeper than") {
		t.Errorf("err = %v", err)
	}
}

// A checkpoint reformatted by a person or a tool still reads.
func TestIndentedInput(t *testing.T) {
	v := zeroSkipped(sample())
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, b, " ", "\t "); err != nil {
		t.Fatal(err)
	}
	got := new(detector)
	if err := Unmarshal(ind.Bytes(), got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("got %+v", got)
	}
}
