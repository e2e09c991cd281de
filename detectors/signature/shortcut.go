package signature

// The shortcuts: parts of expressions Go evaluates itself, before or
// instead of their CEL programs, with the same results (a where's
// comparisons of strings and numbers, a join key of literals and fields).

import (
	"reflect"
	"strings"
	"time"
	"unsafe"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// predicate is a compiled where: its program, and those of its top-level
// conjuncts Go evaluates itself, checked before the program runs: string
// comparisons (== and !=) of fields of e or first, literals and hostkey()
// of a field, and comparisons (==, !=, <, <=, >, >=) of int and duration
// fields, int literals, params and windows, joined by &&, || and !
// (`e.component == "scm"`, `e.thread == "" || e.thread == first.thread`,
// `e.duration >= windows.minpause`). Most signals a where turns down fail
// one of them and cost no evaluation; when they are all of it, the
// program never runs.
type predicate struct {
	prg        cel.Program
	guards     []guard
	whole      bool // the guards are all of it: the program need not run when they pass
	needsFirst bool // some guard reads first
}

// guard is one conjunct Go evaluates.
type guard struct {
	goExpr
	first bool // it reads first
}

// goExpr is a boolean expression Go evaluates: a comparison of a and b
// (op ==, != and, of numbers, <, <=, >, >=), or the &&, || or ! of args.
type goExpr struct {
	op   string
	a, b operand
	args []goExpr
}

// operand is a string or an int (a duration in nanoseconds): a literal,
// the field of e or first at path (a string field's hostkey when hostkey
// is set), or a param or window, named as in the detector's vars.
type operand struct {
	numeric bool
	lit     string
	num     int64
	path    []int   // nil: a literal or a variable
	off     uintptr // the field's offset in an Event (offsetOf)
	dur     bool    // the field is a time.Duration, not an int
	vr      string  // "params.x", "windows.x"; "": not a variable
	first   bool
	hostkey bool
}

// newPredicate returns the predicate of a checked where, nil without one.
func newPredicate(prg cel.Program, checked *cel.Ast) *predicate {
	if prg == nil {
		return nil
	}
	p := &predicate{prg: prg}
	conjuncts := andOf(checked.NativeRep().Expr(), nil)
	for _, x := range conjuncts {
		if c, ok := goExprOf(checked.NativeRep(), x); ok {
			g := guard{goExpr: c, first: c.readsFirst()}
			p.guards = append(p.guards, g)
			p.needsFirst = p.needsFirst || g.first
		}
	}
	p.whole = len(p.guards) == len(conjuncts)
	return p
}

// andOf appends the conjuncts of x: x itself unless it is an &&.
func andOf(x ast.Expr, out []ast.Expr) []ast.Expr {
	if x.Kind() == ast.CallKind && x.AsCall().FunctionName() == operators.LogicalAnd {
		for _, a := range x.AsCall().Args() {
			out = andOf(a, out)
		}
		return out
	}
	return append(out, x)
}

// goExprOf reads x, an expression of checked, as a goExpr, if it is one.
func goExprOf(checked *ast.AST, x ast.Expr) (goExpr, bool) {
	if x.Kind() != ast.CallKind || x.AsCall().IsMemberFunction() {
		return goExpr{}, false
	}
	c := goExpr{op: x.AsCall().FunctionName()}
	args := x.AsCall().Args()
	switch c.op {
	case operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals, operators.Greater, operators.GreaterEquals:
		var ok, okB bool
		c.a, ok = operandOf(checked, args[0])
		c.b, okB = operandOf(checked, args[1])
		ordered := c.op == operators.Equals || c.op == operators.NotEquals || c.a.numeric
		return c, ok && okB && c.a.numeric == c.b.numeric && ordered
	case operators.LogicalAnd, operators.LogicalOr, operators.LogicalNot:
		for _, a := range args {
			sub, ok := goExprOf(checked, a)
			if !ok {
				return goExpr{}, false
			}
			c.args = append(c.args, sub)
		}
		return c, true
	}
	return goExpr{}, false
}

// operandOf reads x, an expression of checked, as a string or int literal,
// a string, int or duration field of e or first, hostkey() of a string
// field, or an int or duration param or window.
func operandOf(checked *ast.AST, x ast.Expr) (operand, bool) {
	switch x.Kind() {
	case ast.LiteralKind:
		switch v := x.AsLiteral().(type) {
		case types.String:
			return operand{lit: string(v)}, true
		case types.Int:
			return operand{numeric: true, num: int64(v)}, true
		}
	case ast.IdentKind: // the checker turns params.x and windows.x into identifiers
		name, t := x.AsIdent(), checked.GetType(x.ID())
		vr := strings.HasPrefix(name, "params.") || strings.HasPrefix(name, "windows.")
		return operand{numeric: true, vr: name}, vr && (t.IsExactType(types.IntType) || t.IsExactType(types.DurationType))
	case ast.SelectKind:
		o := operand{}
		path, end, ok := pathOf(x, "e")
		if !ok {
			o.first = true
			path, end, ok = pathOf(x, "first")
		}
		o.path = path
		switch {
		case !ok:
		case end.Kind() == reflect.String:
			o.off = offsetOf(path)
			return o, true
		case end.Kind() == reflect.Int || end == reflect.TypeFor[time.Duration]():
			o.numeric, o.off, o.dur = true, offsetOf(path), end.Kind() == reflect.Int64
			return o, true
		}
	case ast.CallKind:
		if c := x.AsCall(); c.FunctionName() == "hostkey" && !c.IsMemberFunction() && len(c.Args()) == 1 {
			if o, ok := operandOf(checked, c.Args()[0]); ok && o.path != nil && !o.numeric {
				o.hostkey = true
				return o, true
			}
		}
	}
	return operand{}, false
}

// readsFirst reports whether c reads a field of first.
func (c *goExpr) readsFirst() bool {
	if c.a.first || c.b.first {
		return true
	}
	for i := range c.args {
		if c.args[i].readsFirst() {
			return true
		}
	}
	return false
}

// eval evaluates c for e and first (first not nil when c reads it), with
// the params and windows in vars.
func (c *goExpr) eval(e, first *Event, vars map[string]any) bool {
	switch c.op {
	case operators.LogicalNot:
		return !c.args[0].eval(e, first, vars)
	case operators.LogicalOr:
		for i := range c.args {
			if c.args[i].eval(e, first, vars) {
				return true
			}
		}
		return false
	case operators.LogicalAnd:
		for i := range c.args {
			if !c.args[i].eval(e, first, vars) {
				return false
			}
		}
		return true
	}
	if !c.a.numeric {
		eq := c.a.of(e, first) == c.b.of(e, first)
		return eq == (c.op == operators.Equals)
	}
	a, b := c.a.number(e, first, vars), c.b.number(e, first, vars)
	switch c.op {
	case operators.Equals:
		return a == b
	case operators.NotEquals:
		return a != b
	case operators.Less:
		return a < b
	case operators.LessEquals:
		return a <= b
	case operators.Greater:
		return a > b
	}
	return a >= b
}

// number returns the numeric operand's value for e and first, with the
// params and windows in vars.
func (o *operand) number(e, first *Event, vars map[string]any) int64 {
	switch {
	case o.vr != "":
		switch v := vars[o.vr].(type) {
		case int64:
			return v
		case time.Duration:
			return int64(v)
		}
		panic("signature: " + o.vr + " is neither an int nor a duration") // the checker typed it
	case o.path == nil:
		return o.num
	}
	if o.dur {
		return *(*int64)(o.field(e, first))
	}
	return int64(*(*int)(o.field(e, first)))
}

// of returns the string operand's string for e and first.
func (o *operand) of(e, first *Event) string {
	if o.path == nil {
		return o.lit
	}
	v := *(*string)(o.field(e, first))
	if o.hostkey {
		return detectors.HostKey(v)
	}
	return v
}

// keyPlan is a join key that Go builds itself: the concatenation of
// string literals, string fields of e and hostkey() of them (`e.host`,
// `"old-datanode/" + e.datanode.uuid`). Nil for any other expression,
// which its program evaluates.
type keyPlan []operand

// newKeyPlan returns the plan of a checked key expression, nil when it is
// not one.
func newKeyPlan(checked *cel.Ast) keyPlan {
	var plan keyPlan
	if !plan.add(checked.NativeRep(), checked.NativeRep().Expr()) {
		return nil
	}
	return plan
}

func (p *keyPlan) add(checked *ast.AST, x ast.Expr) bool {
	if x.Kind() == ast.CallKind {
		if c := x.AsCall(); c.FunctionName() == operators.Add && !c.IsMemberFunction() {
			return p.add(checked, c.Args()[0]) && p.add(checked, c.Args()[1])
		}
	}
	o, ok := operandOf(checked, x)
	*p = append(*p, o)
	return ok && !o.first && !o.numeric
}

// key builds the key for e.
func (p keyPlan) key(e *Event) string {
	if len(p) == 1 {
		return p[0].of(e, nil)
	}
	var parts [8]string
	at := parts[:0]
	for i := range p {
		at = append(at, p[i].of(e, nil))
	}
	return strings.Join(at, "") // one allocation, of the key's length
}

// pathOf reads a chain of selects from ident (e or first) as the field
// indexes from Event, and the type of the field it ends in.
func pathOf(x ast.Expr, ident string) ([]int, reflect.Type, bool) {
	var names []string
	for x.Kind() == ast.SelectKind && !x.AsSelect().IsTestOnly() {
		names = append(names, x.AsSelect().FieldName())
		x = x.AsSelect().Operand()
	}
	if x.Kind() != ast.IdentKind || x.AsIdent() != ident || len(names) == 0 {
		return nil, nil, false
	}
	var path []int
	t := reflect.TypeFor[Event]()
	for i := len(names) - 1; i >= 0; i-- {
		f, ok := fieldNamed(t, names[i])
		if !ok {
			return nil, nil, false
		}
		path, t = append(path, f.Index...), f.Type
	}
	return path, t, true
}

// fieldNamed finds the field of struct t that expressions name name.
func fieldNamed(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("json") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// offsetOf returns where the field of an Event at path lies in it: every
// field on the way is a struct held by value (pathOf), so the field is at
// one offset in every Event, and read there without reflection.
func offsetOf(path []int) uintptr {
	var off uintptr
	t := reflect.TypeFor[Event]()
	for _, i := range path {
		f := t.Field(i)
		off, t = off+f.Offset, f.Type
	}
	return off
}

// field returns the address of the field operand o reads, of e or first.
func (o *operand) field(e, first *Event) unsafe.Pointer {
	ev := e
	if o.first {
		ev = first
	}
	return unsafe.Add(unsafe.Pointer(ev), o.off)
}

// pass reports whether e (and first, for a pair) pass the guards, with the
// params and windows in vars; when they do not, the where is false. A
// guard that reads first is passed over without it.
func (p *predicate) pass(e, first *Event, vars map[string]any) bool {
	for i := range p.guards {
		if g := &p.guards[i]; (first != nil || !g.first) && !g.eval(e, first, vars) {
			return false
		}
	}
	return true
}

// holds reports whether the where is true for e (and first), with the
// params and windows in vars. act gives the activation of its program,
// asked only when the guards cannot decide.
func (p *predicate) holds(e, first *Event, vars map[string]any, act func() interpreter.Activation) bool {
	if !p.pass(e, first, vars) {
		return false
	}
	return p.whole && (first != nil || !p.needsFirst) || isTrue(p.prg, act())
}
