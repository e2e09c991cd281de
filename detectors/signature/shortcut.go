package signature

// The shortcuts: parts of expressions Go evaluates itself, before or
// instead of their CEL programs, with the same results (a where's string
// comparisons, a join key of literals and fields).

import (
	"reflect"
	"strings"

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
// of a field, joined by &&, || and ! (`e.component == "scm"`,
// `e.thread == "" || e.thread == first.thread`). Most signals a where
// turns down fail one of them and cost no evaluation; when they are all of
// it, the program never runs.
type predicate struct {
	prg        cel.Program
	guards     []guard
	whole      bool // the guards are all of it: the program need not run when they pass
	needsFirst bool // some guard reads first
}

// guard is one conjunct Go evaluates.
type guard struct {
	strExpr
	first bool // it reads first
}

// strExpr is a boolean expression over strings that Go evaluates: a comparison of
// a and b (op == or !=), or the &&, || or ! of args.
type strExpr struct {
	op   string
	a, b operand
	args []strExpr
}

// operand is a string literal, or the string field of e or first at path
// (its hostkey when hostkey is set).
type operand struct {
	lit     string
	path    []int // nil: lit
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
		if c, ok := strExprOf(x); ok {
			g := guard{strExpr: c, first: c.readsFirst()}
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

// strExprOf reads x as a strExpr, if it is one.
func strExprOf(x ast.Expr) (strExpr, bool) {
	if x.Kind() != ast.CallKind || x.AsCall().IsMemberFunction() {
		return strExpr{}, false
	}
	c := strExpr{op: x.AsCall().FunctionName()}
	args := x.AsCall().Args()
	switch c.op {
	case operators.Equals, operators.NotEquals:
		var ok, okB bool
		c.a, ok = operandOf(args[0])
		c.b, okB = operandOf(args[1])
		return c, ok && okB
	case operators.LogicalAnd, operators.LogicalOr, operators.LogicalNot:
		for _, a := range args {
			sub, ok := strExprOf(a)
			if !ok {
				return strExpr{}, false
			}
			c.args = append(c.args, sub)
		}
		return c, true
	}
	return strExpr{}, false
}

// operandOf reads a string literal, a string field of e or first, or
// hostkey() of such a field.
func operandOf(x ast.Expr) (operand, bool) {
	switch x.Kind() {
	case ast.LiteralKind:
		s, ok := x.AsLiteral().(types.String)
		return operand{lit: string(s)}, ok
	case ast.SelectKind:
		if path, ok := pathOf(x, "e"); ok {
			return operand{path: path}, true
		}
		path, ok := pathOf(x, "first")
		return operand{path: path, first: true}, ok
	case ast.CallKind:
		if c := x.AsCall(); c.FunctionName() == "hostkey" && !c.IsMemberFunction() && len(c.Args()) == 1 {
			if o, ok := operandOf(c.Args()[0]); ok && o.path != nil {
				o.hostkey = true
				return o, true
			}
		}
	}
	return operand{}, false
}

// readsFirst reports whether c reads a field of first.
func (c *strExpr) readsFirst() bool {
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

// eval evaluates c for e and first (first not nil when c reads it).
func (c *strExpr) eval(e, first *Event) bool {
	switch c.op {
	case operators.Equals:
		return c.a.of(e, first) == c.b.of(e, first)
	case operators.NotEquals:
		return c.a.of(e, first) != c.b.of(e, first)
	case operators.LogicalNot:
		return !c.args[0].eval(e, first)
	case operators.LogicalOr:
		for i := range c.args {
			if c.args[i].eval(e, first) {
				return true
			}
		}
		return false
	}
	for i := range c.args { // &&
		if !c.args[i].eval(e, first) {
			return false
		}
	}
	return true
}

// of returns the operand's string for e and first.
func (o *operand) of(e, first *Event) string {
	if o.path == nil {
		return o.lit
	}
	ev := e
	if o.first {
		ev = first
	}
	v := stringAt(ev, o.path)
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
	if !plan.add(checked.NativeRep().Expr()) {
		return nil
	}
	return plan
}

func (p *keyPlan) add(x ast.Expr) bool {
	if x.Kind() == ast.CallKind {
		if c := x.AsCall(); c.FunctionName() == operators.Add && !c.IsMemberFunction() {
			return p.add(c.Args()[0]) && p.add(c.Args()[1])
		}
	}
	o, ok := operandOf(x)
	*p = append(*p, o)
	return ok && !o.first
}

// key builds the key for e.
func (p keyPlan) key(e *Event) string {
	if len(p) == 1 {
		return p[0].of(e, nil)
	}
	var b strings.Builder
	for i := range p {
		b.WriteString(p[i].of(e, nil))
	}
	return b.String()
}

// pathOf reads a chain of selects from ident (e or first) ending in a
// string field, as the field indexes from Event.
func pathOf(x ast.Expr, ident string) ([]int, bool) {
	var names []string
	for x.Kind() == ast.SelectKind && !x.AsSelect().IsTestOnly() {
		names = append(names, x.AsSelect().FieldName())
		x = x.AsSelect().Operand()
	}
	if x.Kind() != ast.IdentKind || x.AsIdent() != ident || len(names) == 0 {
		return nil, false
	}
	var path []int
	t := reflect.TypeFor[Event]()
	for i := len(names) - 1; i >= 0; i-- {
		f, ok := fieldNamed(t, names[i])
		if !ok {
			return nil, false
		}
		path, t = append(path, f.Index...), f.Type
	}
	return path, t.Kind() == reflect.String
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

// stringAt reads the string field of e at path.
func stringAt(e *Event, path []int) string {
	return reflect.ValueOf(e).Elem().FieldByIndex(path).String()
}

// pass reports whether e (and first, for a pair) pass the guards; when
// they do not, the where is false. A guard that reads first is passed over
// without it.
func (p *predicate) pass(e, first *Event) bool {
	for i := range p.guards {
		if g := &p.guards[i]; (first != nil || !g.first) && !g.eval(e, first) {
			return false
		}
	}
	return true
}

// holds reports whether the where is true for e (and first). act gives
// the activation of its program, asked only when the guards cannot decide.
func (p *predicate) holds(e, first *Event, act func() interpreter.Activation) bool {
	if !p.pass(e, first) {
		return false
	}
	return p.whole && (first != nil || !p.needsFirst) || isTrue(p.prg, act())
}
