package signature

// The shortcuts: parts of expressions Go evaluates itself, before or
// instead of their CEL programs, with the same results (a where's
// equality guards, a join key of literals and fields).

import (
	"reflect"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
)

// predicate is a compiled where: its program, and those of its top-level
// conjuncts that compare a string field of e with a literal or with the
// same field of first (`e.component == "scm"`, `e.host == first.host`),
// which Go checks before the program runs. Most signals a where turns
// down fail one of them, and cost no evaluation.
type predicate struct {
	prg        cel.Program
	guards     []guard
	whole      bool // the guards are all of it: the program need not run when they pass
	needsFirst bool // some guard reads first
}

// guard is one conjunct: e's field at path equals lit, or first's same
// field.
type guard struct {
	path  []int
	first bool
	lit   string
}

// newPredicate returns the predicate of a checked where, nil without one.
func newPredicate(prg cel.Program, checked *cel.Ast) *predicate {
	if prg == nil {
		return nil
	}
	p := &predicate{prg: prg}
	conjuncts := andOf(checked.NativeRep().Expr(), nil)
	for _, x := range conjuncts {
		if g, ok := guardOf(x); ok {
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

// guardOf reads `e.f == "lit"`, `"lit" == e.f` or `e.f == first.f` (f a
// string field of Event, or of one of its structs: e.datanode.host).
func guardOf(x ast.Expr) (guard, bool) {
	if x.Kind() != ast.CallKind || x.AsCall().FunctionName() != operators.Equals {
		return guard{}, false
	}
	args := x.AsCall().Args()
	a, b := args[0], args[1]
	if _, ok := pathOf(a, "e"); !ok {
		a, b = b, a
	}
	path, ok := pathOf(a, "e")
	if !ok {
		return guard{}, false
	}
	if other, ok := pathOf(b, "first"); ok && slices.Equal(other, path) {
		return guard{path: path, first: true}, true
	}
	if b.Kind() == ast.LiteralKind {
		if s, ok := b.AsLiteral().(types.String); ok {
			return guard{path: path, lit: string(s)}, true
		}
	}
	return guard{}, false
}

// keyPlan is a join key that Go builds itself: the concatenation of
// string literals and string fields of e (`e.host`,
// `"old-datanode/" + e.datanode.uuid`). Nil for any other expression,
// which its program evaluates.
type keyPlan []keyPart

// keyPart is a literal, or the field of e at path when path is set.
type keyPart struct {
	lit  string
	path []int
}

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
	switch x.Kind() {
	case ast.LiteralKind:
		s, ok := x.AsLiteral().(types.String)
		*p = append(*p, keyPart{lit: string(s)})
		return ok
	case ast.SelectKind:
		path, ok := pathOf(x, "e")
		*p = append(*p, keyPart{path: path})
		return ok
	case ast.CallKind:
		c := x.AsCall()
		return c.FunctionName() == operators.Add && !c.IsMemberFunction() && p.add(c.Args()[0]) && p.add(c.Args()[1])
	}
	return false
}

// key builds the key for e.
func (p keyPlan) key(e *Event) string {
	if len(p) == 1 && p[0].path != nil {
		return stringAt(e, p[0].path)
	}
	var b strings.Builder
	for _, k := range p {
		if k.path == nil {
			b.WriteString(k.lit)
		} else {
			b.WriteString(stringAt(e, k.path))
		}
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
// they do not, the where is false.
func (p *predicate) pass(e, first *Event) bool {
	for _, g := range p.guards {
		switch v := stringAt(e, g.path); {
		case !g.first:
			if v != g.lit {
				return false
			}
		case first != nil:
			if v != stringAt(first, g.path) {
				return false
			}
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
