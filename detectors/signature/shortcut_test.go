package signature

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/interpreter"
)

// predicateOf compiles a step whose where is where (first bound too when
// pair is set) and returns its predicate. The signature has a param n (3)
// and a window w (30s).
func predicateOf(t *testing.T, where string, pair bool) *predicate {
	t.Helper()
	step := "      on: jvm_pause\n      where: '" + where + "'\n"
	if pair {
		step = "      on: jvm_pause\n      followed_by:\n        on: invalid_datanode\n        within: 2s\n        where: '" + where + "'\n"
	}
	step += "      emit: {severity: warning}\n"
	s := mustCompile(t, `signature: v1
id: predicate-test
problem: p
title: t
summary: s
params:
  n:
    type: int
    default: "3"
    doc: a count
windows:
  w: duration("30s")
match:
  horizon: 1h
  max_open: 2
  steps:
    - name: one
`+step)
	a := s.match.steps[0].alts[0]
	if pair {
		return a.follow.where
	}
	return a.where
}

// predicateVars are the vars of predicateOf's signature.
var predicateVars = map[string]any{"params.n": int64(3), "windows.w": 30 * time.Second}

// The guards Go checks are the top-level conjuncts made of comparisons of
// strings and of ints and durations, &&, || and ! over fields of e and
// first, literals, hostkey(), params and windows; the rest is left to the
// program.
func TestPredicateGuards(t *testing.T) {
	for _, tc := range []struct {
		where  string
		pair   bool
		guards string
		whole  bool
	}{
		{`e.component == "scm"`, false, `e.component == "scm"`, true},
		{`"scm" == e.component && e.duration > duration("1s")`, false, `"scm" == e.component`, false},
		{`e.component == "scm" && (e.host == "a" && e.thread == "t")`, false, `e.component == "scm"; e.host == "a"; e.thread == "t"`, true},
		{`e.component == "scm" || e.host == "a"`, false, `(e.component == "scm" || e.host == "a")`, true},
		{`e.datanode.host == "a"`, false, `e.datanode.host == "a"`, true},
		{`e.datanode == first.datanode`, true, ``, false},
		{`e.host != "a"`, false, `e.host != "a"`, true},
		{`!(e.host == "a") && e.value > 0.0`, false, `!(e.host == "a")`, false},
		{`e.host == first.host && e.thread == first.thread`, true, `e.host == first.host; e.thread == first.thread`, true},
		{`e.host == first.thread`, true, `e.host == first.thread`, true},
		{`e.host == first.host && (e.thread == "" || first.thread == "" || e.thread == first.thread) && hostkey(e.datanode.host) == hostkey(first.datanode.host)`, true,
			`e.host == first.host; ((e.thread == "" || first.thread == "") || e.thread == first.thread); hostkey(e.datanode.host) == hostkey(first.datanode.host)`, true},
		{`e.host == first.host && e.datanode.host.split(".")[0] == first.datanode.host.split(".")[0]`, true, `e.host == first.host`, false},
		{`e.attrs["x"] == "a" || e.host == "a"`, false, ``, false},
		{`e.text.startsWith("a") == true`, false, ``, false},
		{`e.component == "scm" && e.duration >= windows.w`, false, `e.component == "scm"; e.duration >= windows.w`, true},
		{`e.count > 2 && e.max_bcsid < e.bcsid`, false, `e.count > 2; e.max_bcsid < e.bcsid`, true},
		{`e.count >= params.n || e.container == 7`, false, `(e.count >= params.n || e.container == 7)`, true},
		{`e.index <= first.index && e.term != first.term`, true, `e.index <= first.index; e.term != first.term`, true},
		{`e.time > first.time`, true, ``, false},
		{`e.duration > duration("1s") && e.count > 1`, false, `e.count > 1`, false},
		{`e.count + 1 > params.n`, false, ``, false},
		{`e.value > 1.5`, false, ``, false},
	} {
		t.Run(tc.where, func(t *testing.T) {
			p := predicateOf(t, tc.where, tc.pair)
			var got []string
			for _, g := range p.guards {
				got = append(got, describe(g.goExpr))
			}
			if strings.Join(got, "; ") != tc.guards || p.whole != tc.whole {
				t.Errorf("guards %q whole %v, want %q %v", strings.Join(got, "; "), p.whole, tc.guards, tc.whole)
			}
		})
	}
}

// describe writes x as an expression.
func describe(x goExpr) string {
	operand := func(o operand) string {
		switch {
		case o.vr != "":
			return o.vr
		case o.path == nil && o.numeric:
			return fmt.Sprint(o.num)
		case o.path == nil:
			return fmt.Sprintf("%q", o.lit)
		}
		names := []string{"e"}
		if o.first {
			names[0] = "first"
		}
		for t, i := reflect.TypeFor[Event](), 0; i < len(o.path); i++ {
			f := t.Field(o.path[i])
			names, t = append(names, f.Tag.Get("json")), f.Type
		}
		s := strings.Join(names, ".")
		if o.hostkey {
			s = "hostkey(" + s + ")"
		}
		return s
	}
	compare := map[string]string{operators.Equals: "==", operators.NotEquals: "!=", operators.Less: "<",
		operators.LessEquals: "<=", operators.Greater: ">", operators.GreaterEquals: ">="}
	if op, ok := compare[x.op]; ok {
		return operand(x.a) + " " + op + " " + operand(x.b)
	}
	switch x.op {
	case operators.LogicalNot:
		return "!(" + describe(x.args[0]) + ")"
	}
	joint := " && "
	if x.op == operators.LogicalOr {
		joint = " || "
	}
	var parts []string
	for _, a := range x.args {
		parts = append(parts, describe(a))
	}
	return "(" + strings.Join(parts, joint) + ")"
}

// Whatever the guards decide, the predicate holds exactly when its
// program does.
func TestPredicateAgreesWithItsProgram(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pick := func(vs ...string) string { return vs[r.Intn(len(vs))] }
	event := func() *Event {
		return &Event{Host: pick("a", "b"), Thread: pick("", "t1", "t2"), Component: pick("scm", "om", ""),
			Datanode: Datanode{Host: pick("dn1.x", "DN1.y", "dn2.x", " dn2", "10.0.0.5", "10.0.0.6")},
			Count:    r.Intn(6) - 1, BCSID: r.Intn(4), MaxBCSID: r.Intn(4), Duration: time.Duration(r.Intn(60)) * time.Second}
	}
	for _, tc := range []struct {
		where string
		pair  bool
	}{
		{`e.component == "scm"`, false},
		{`e.component == "scm" && e.host == "a"`, false},
		{`"om" == e.component && e.thread != ""`, false},
		{`e.host == first.host && (e.thread == "" || first.thread == "" || e.thread == first.thread) && e.datanode.host.split(".")[0] == first.datanode.host.split(".")[0]`, true},
		{`e.host == first.host && e.thread == first.thread`, true},
		{`e.datanode.host == first.datanode.host && e.host == "a"`, true},
		{`e.host == first.host && (e.thread == "" || first.thread == "" || e.thread == first.thread) && hostkey(e.datanode.host) == hostkey(first.datanode.host)`, true},
		{`hostkey(e.datanode.host) == "dn1"`, false},
		{`e.component != "" && !(e.host == "a" || e.thread == "t1")`, false},
		{`e.host == first.thread || e.component == "om"`, true},
		{`(e.component == "scm" || e.thread != "") && e.datanode.host.size() > 4`, false},
		{`e.component == "scm" && e.duration >= windows.w`, false},
		{`e.duration < windows.w && e.count > 0`, false},
		{`e.count >= params.n || e.max_bcsid > e.bcsid`, false},
		{`e.count <= first.count && e.bcsid != first.bcsid`, true},
		{`e.max_bcsid == e.bcsid || !(e.count < 1)`, false},
		{`e.duration > first.duration && e.count > 1 && e.datanode.host.size() > 4`, true},
	} {
		p := predicateOf(t, tc.where, tc.pair)
		vars, err := interpreter.NewActivation(predicateVars)
		if err != nil {
			t.Fatal(err)
		}
		agreed, held := 0, 0
		for range 200 {
			e, first := event(), event()
			var act interpreter.Activation = &eventVars{vars: vars, e: e}
			if tc.pair {
				act = &eventVars{vars: vars, e: e, first: first}
			} else {
				first = nil
			}
			want := isTrue(p.prg, act)
			if got := p.holds(e, first, predicateVars, func() interpreter.Activation { return act }); got != want {
				t.Fatalf("%s on e=%+v first=%+v: holds %v, program %v", tc.where, e, first, got, want)
			}
			agreed++
			if want {
				held++
			}
		}
		if held == 0 || held == agreed {
			t.Errorf("%s: true in %d of %d cases: the cases do not tell", tc.where, held, agreed)
		}
	}
}

// A join key made of literals, string fields of e and hostkey() of them is
// built in Go, and gives what its program gives; any other is left to the
// program.
func TestKeyPlanAgreesWithItsProgram(t *testing.T) {
	for _, tc := range []struct {
		by   string
		plan bool
	}{
		{`e.host`, true},
		{`"old-datanode/" + e.datanode.uuid`, true},
		{`e.host + "/" + e.component + "/" + e.datanode.host`, true},
		{`e.datanode.uuid != "" ? e.datanode.uuid : e.host`, false},
		{`hostkey(e.host) + "/" + e.component`, true},
		{`e.host.lowerAscii()`, false},
		{`string(e.container)`, false},
	} {
		t.Run(tc.by, func(t *testing.T) {
			s := mustCompile(t, `signature: v1
id: key-test
problem: p
title: t
summary: s
match:
  by: '`+tc.by+`'
  horizon: 1h
  max_open: 2
  steps:
    - name: one
      on: jvm_pause
      emit: {severity: warning}
`)
			m := s.match
			if (m.byPlan != nil) != tc.plan {
				t.Fatalf("planned %v, want %v", m.byPlan != nil, tc.plan)
			}
			if m.byPlan == nil {
				return
			}
			e := &Event{Host: "scm1.example.com", Component: "scm", Datanode: Datanode{UUID: "u-1", Host: "dn1"}, Container: 7}
			want, ok := evalKey(m.by, &eventVars{vars: interpreter.EmptyActivation(), e: e})
			if got := m.byPlan.key(e); !ok || got != want {
				t.Errorf("plan gives %q, program %q (%v)", got, want, ok)
			}
		})
	}
}
