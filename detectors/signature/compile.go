package signature

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"

	"github.com/ozdoctor/ozdoctor/detectors"
	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
	"github.com/ozdoctor/ozdoctor/parsers/site"
)

// MinLiteral is the shortest literal a signature's own message entry may
// give the prefilter.
const MinLiteral = 8

// Signature is a compiled signature file, ready to run.
type Signature struct {
	ID      string
	Path    string // where it was read, as given to Compile
	Builtin bool
	// Hash covers what decides the signature's state (signals, params,
	// windows, match): a reload keeps the open state of a signature whose
	// id and hash are unchanged.
	Hash    string
	Status  string
	Version string
	Tests   []string // globs of its test cases, relative to its file

	doc      detectors.Doc
	entries  []catalogue.Entry
	params   []param
	windows  []window
	match    match
	lets     []named // let: evaluated in order when a finding is rendered
	entities entityProgs
	affected []cel.Program // the hosts whose versions affected is judged on (nil: the finding's hosts)
	facts    []named
	evidence []cel.Program // Event, Row or a list of them
	summary  *template.Template
	bys      []cel.Program // every join-key expression: match.by and the steps' own
}

type param struct {
	name string
	kind detectors.OptionKind
}

type window struct {
	name string
	ast  *cel.Ast
	opts []cel.EnvOption // params and the windows before it
}

type named struct {
	name string
	prg  cel.Program
}

type match struct {
	by      cel.Program             // nil: one instance per signature at a time
	byPlan  keyPlan                 // by built in Go, when it is literals and fields of e
	key     cel.Program             // nil: the join key and the incident's number
	takes   map[catalogue.Kind]bool // kinds an open instance can take (all but the followers')
	horizon durationExpr
	skew    durationExpr
	maxOpen int
	steps   []step
	until   *cond
	resolve *cond
	// corroborate: signals that confirm an instance of their key (bound
	// under their names after the steps); their by sees only e.
	corroborate []step
	tables      []table
	// severity and confidence, when set, are computed whenever a finding
	// is rendered and override what the steps' emits set.
	severity, confidence valueExpr
}

// table is a running table (Table).
type table struct {
	name     string
	run      bool // kept across the run, not per incident
	asOfOpen bool // a run table an incident reads as it stood when it opened
	alts     []alt
	row      cel.Program
	remove   []alt
	maxRows  int
	horizon  durationExpr // run tables: rows with no signal for this long are dropped
}

type step struct {
	name   string
	alts   []alt
	within durationExpr // zero: until the horizon
	count  *count
	absent bool
	emit   *emit
	anyKey bool // a corroboration of every instance (corroborate_any.go)
}

type alt struct {
	kinds      []catalogue.Kind
	where      *predicate  // nil: every signal of the kinds
	by         cel.Program // nil: the match's
	confidence valueExpr
	follow     *follow // nil: the signal alone (pairing.go)
}

type count struct {
	min      cel.Program // int
	distinct cel.Program // string; nil: every signal counts
	each     *each       // nil: no follow-up per member (each.go)
	track    bool        // keep signals and members: each, or an expression reads them (each.go)
	per      cel.Program // string; nil: min counts all (counting.go)
}

type emit struct {
	severity, confidence valueExpr
	pending              bool
}

type cond struct {
	name  string // binds the signal that met it, for the outputs
	alts  []alt
	quiet durationExpr
	after int // resolve's quiet counts once this many steps are met (after.go)
}

type entityProgs struct {
	hosts, datanodes, containers, pipelines, groups, oms []cel.Program
}

// valueExpr is a literal or an expression giving a string.
type valueExpr struct {
	lit string
	prg cel.Program
}

// durationExpr is a constant duration or an expression over params and
// windows, evaluated when the run starts and when the settings change.
type durationExpr struct {
	set bool
	lit time.Duration
	prg cel.Program
}

var (
	eventType    = cel.ObjectType("signature.Event")
	burstType    = cel.ObjectType("signature.Burst")
	rowType      = cel.ObjectType("signature.Row")
	datanodeType = cel.ObjectType("signature.Datanode")
)

// compiler holds what compiling one file needs.
type compiler struct {
	path  string
	file  *File
	errs  Errors
	kinds map[catalogue.Kind]bool // every kind a step may name
	base  []cel.EnvOption         // types, params, windows
	envs  map[[2]int]*cel.Env     // by bound steps and whether e is bound
	names map[string]bool         // taken by steps, corroborations, conditions, tables and lets
}

// Compile checks and compiles a parsed signature file. known are the
// catalogue's kinds (the built-in entries' and the engine's own); the
// file's own signals add to them.
func Compile(path string, f *File, known map[catalogue.Kind]bool) (*Signature, error) {
	c := &compiler{path: path, file: f, kinds: map[catalogue.Kind]bool{}}
	for k := range known {
		c.kinds[k] = true
	}
	s := &Signature{ID: f.ID, Path: path, Status: f.Status, Version: f.Version, Tests: f.Tests}
	c.header(s)
	c.signals(s)
	c.paramsAndWindows(s)
	if len(c.errs) == 0 {
		c.compileMatch(s)
		c.compileTables(s)
		c.outputs(s)
		trackMembers(s, f)
	}
	if len(c.errs) > 0 {
		for _, e := range c.errs {
			e.File = path
		}
		return nil, c.errs
	}
	s.Hash = f.hash
	return s, nil
}

func (c *compiler) errorf(p Pos, format string, a ...any) {
	c.errs = append(c.errs, &Error{Pos: p, Msg: fmt.Sprintf(format, a...)})
}

func (c *compiler) at(key string) Pos { return c.file.pos[key] }

var idRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*[a-z0-9]$`)

func (c *compiler) header(s *Signature) {
	f := c.file
	if !idRe.MatchString(f.ID) {
		c.errorf(c.at("id"), "id %q: want lower-case letters, digits, '.' and '-' (e.g. dn-volume-failed)", f.ID)
	}
	switch f.Status {
	case "", "experimental", "test", "stable":
	default:
		c.errorf(c.at("status"), "status %q: want experimental, test or stable", f.Status)
	}
	if f.Title == "" {
		c.errorf(c.at("id"), "missing title")
	}
	if f.Defect != "" && f.Problem != "" {
		c.errorf(c.at("problem"), "give defect (a JIRA key) or problem (a condition's name), not both")
	}
	key := f.Defect
	if key == "" {
		key = f.Problem
	}
	if key == "" {
		c.errorf(c.at("id"), "missing defect or problem (the key the report names, e.g. HDDS-16809 or dn-volume-failure)")
	}
	var needs []parsers.Component
	for _, n := range f.Needs {
		switch comp := parsers.Component(n); comp {
		case parsers.ComponentSCM, parsers.ComponentOM, parsers.ComponentDatanode, parsers.ComponentRecon, parsers.ComponentS3G:
			needs = append(needs, comp)
		default:
			c.errorf(c.at("needs"), "needs %q: want scm, om, datanode, recon or s3g", n)
		}
	}
	s.doc = detectors.Doc{
		Name: f.ID, Defect: key, Title: f.Title, Summary: strings.TrimSpace(f.Description),
		Explanation: strings.TrimSpace(f.Explanation), FalsePositives: f.FalsePositives,
		Resolves: strings.TrimSpace(f.Resolves), Needs: needs, Package: f.ID, Affected: f.Affected,
		FixedIn: f.FixedIn, Metrics: f.Metrics,
	}
	s.doc.VersionsRead = strings.TrimSpace(f.VersionsRead)
	if len(f.References) > 0 {
		s.doc.VersionsRead = strings.TrimSpace(s.doc.VersionsRead + "; references: " + strings.Join(f.References, " "))
		s.doc.VersionsRead = strings.TrimPrefix(s.doc.VersionsRead, "; ")
	}
	if err := s.doc.ValidateVersions(); err != nil {
		c.errorf(c.at("affected"), "%v", err)
	}
	for _, r := range f.Remediation {
		s.doc.Remediation = append(s.doc.Remediation, r.Src)
		if _, err := template.New("").Funcs(detectors.TemplateFuncs()).Parse(r.Src); err != nil {
			c.errorf(r.Pos, "remediation template: %v", err)
		}
	}
	if f.Summary.Set() {
		t, err := template.New(f.ID).Funcs(detectors.TemplateFuncs()).Parse(f.Summary.Src)
		if err != nil {
			c.errorf(f.Summary.Pos, "summary template: %v", err)
		}
		s.summary = t
	} else {
		c.errorf(c.at("id"), "missing summary (the finding's one-paragraph text, a template)")
	}
}

// groupTypes are the typed Signal fields a message entry's named group
// may fill (catalogue setField), by group name.
var groupTypes = map[string]string{
	"dn": "datanode", "dnuuid": "string", "dnhost": "string", "dnip": "string", "container": "int",
	"pipeline": "string", "pipelines": "list", "group": "string", "peer": "string", "om": "string",
	"member": "string", "peers": "list", "oldpeers": "list", "ratisdur": "duration", "ms": "duration",
	"ns": "duration", "count": "int", "index": "int", "term": "int", "bcsid": "int", "maxbcsid": "int",
	"state": "string", "reason": "string", "version": "string", "version2": "string", "apparent": "string",
	"apparent2": "string", "nonempty": "bool", "force": "bool",
}

var kindRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func (c *compiler) signals(s *Signature) {
	for _, d := range c.file.Signals {
		k := catalogue.Kind(d.Kind)
		switch {
		case !kindRe.MatchString(d.Kind):
			c.errorf(d.Pos, "signal kind %q: want lower_case_with_underscores", d.Kind)
			continue
		case c.kinds[k]:
			c.errorf(d.Pos, "signal kind %q is already in the catalogue: name your own", d.Kind)
			continue
		}
		if d.Source == "" {
			c.errorf(d.Pos, "signal %s: missing source (the Ozone source file:line the message comes from)", d.Kind)
		}
		if len(d.Literals) == 0 {
			c.errorf(d.Pos, "signal %s: missing literals (text every wording of the message contains, at least %d bytes)", d.Kind, MinLiteral)
		}
		for _, l := range d.Literals {
			if len(l) < MinLiteral {
				c.errorf(d.Pos, "signal %s: literal %q is shorter than %d bytes", d.Kind, l, MinLiteral)
			}
		}
		if !d.Pattern.Set() {
			c.errorf(d.Pos, "signal %s: missing pattern (an RE2 regular expression with named groups)", d.Kind)
			continue
		}
		re, err := regexp.Compile(d.Pattern.Src)
		if err != nil {
			c.errorf(d.Pattern.Pos, "signal %s: pattern: %v", d.Kind, err)
			continue
		}
		for _, l := range d.Literals {
			if len(l) >= MinLiteral && !strings.Contains(re.String(), regexp.QuoteMeta(l)) && !strings.Contains(d.Pattern.Src, l) {
				c.errorf(d.Pattern.Pos, "signal %s: literal %q does not appear in the pattern as written", d.Kind, l)
			}
		}
		declared := map[string]bool{}
		for g, typ := range d.Groups {
			declared[g] = true
			if want, ok := groupTypes[g]; ok && want != typ {
				c.errorf(d.Pos, "signal %s: group %q fills the signal's %s field, of type %s, not %s", d.Kind, g, g, want, typ)
			} else if !ok && typ != "string" {
				c.errorf(d.Pos, "signal %s: group %q is not a typed signal field (%s): it lands in e.attrs as a string", d.Kind, g, strings.Join(sortedKeys(groupTypes), ", "))
			}
		}
		inPattern := map[string]bool{}
		for _, g := range re.SubexpNames()[1:] {
			if g != "" && !declared[g] && !inPattern[g] {
				c.errorf(d.Pattern.Pos, "signal %s: named group %q is not declared under groups", d.Kind, g)
			}
			inPattern[g] = true
		}
		for _, g := range sortedKeys(declared) {
			if !inPattern[g] {
				c.errorf(d.Pos, "signal %s: group %q is declared but the pattern has no (?P<%s>...)", d.Kind, g, g)
			}
		}
		c.kinds[k] = true
		var attrs []string // groups that land in Attrs: present on every signal, "" when they did not match
		for _, g := range sortedKeys(d.Groups) {
			if _, typed := groupTypes[g]; !typed {
				attrs = append(attrs, g)
			}
		}
		s.entries = append(s.entries, catalogue.Entry{Kind: k, Source: d.Source, Loggers: d.Loggers, Literals: d.Literals, Pattern: re,
			Post: func(sig *catalogue.Signal, _ catalogue.Groups) bool {
				for _, g := range attrs {
					if _, ok := sig.Attrs[g]; !ok {
						if sig.Attrs == nil {
							sig.Attrs = map[string]string{}
						}
						sig.Attrs[g] = ""
					}
				}
				return true
			}})
	}
}

func (c *compiler) paramsAndWindows(s *Signature) {
	c.base = nil
	for _, p := range c.file.Params {
		opt := detectors.Option{Name: p.Name, Default: p.Value.Default, Min: p.Value.Min, Doc: p.Value.Doc}
		var typ *cel.Type
		switch p.Value.Type {
		case "int":
			opt.Kind, typ = detectors.OptionInt, cel.IntType
		case "duration":
			opt.Kind, typ = detectors.OptionDuration, cel.DurationType
		case "string":
			opt.Kind, typ = detectors.OptionString, cel.StringType
		default:
			c.errorf(p.Pos, "param %s: type %q: want int, duration or string", p.Name, p.Value.Type)
			continue
		}
		if p.Value.Doc == "" {
			c.errorf(p.Pos, "param %s: missing doc", p.Name)
		}
		if _, err := opt.Check(opt.Default); err != nil {
			c.errorf(p.Pos, "param %s: default: %v", p.Name, err)
		}
		s.doc.Options = append(s.doc.Options, opt)
		s.params = append(s.params, param{name: p.Name, kind: opt.Kind})
		c.base = append(c.base, cel.Variable("params."+p.Name, typ))
	}
	settingFn := cel.Function("setting", cel.Overload("setting_string_duration", []*cel.Type{cel.StringType, cel.DurationType}, cel.DurationType))
	for _, w := range c.file.Windows {
		env, err := extend(append(slices.Clone(c.base), settingFn)...)
		if err != nil {
			c.errorf(w.Pos, "window %s: %v", w.Name, err)
			return
		}
		src := w.Value
		if d, ok := literalDuration(src.Src); ok {
			src.Src = fmt.Sprintf("duration(%q)", d.String())
		}
		ast := c.check(env, src, cel.DurationType, "window "+w.Name)
		if ast != nil {
			s.windows = append(s.windows, window{name: w.Name, ast: ast, opts: slices.Clone(c.base)})
		}
		c.base = append(c.base, cel.Variable("windows."+w.Name, cel.DurationType), cel.Variable("sources."+w.Name, cel.StringType))
	}
}

// typesEnv is the environment every signature's expressions start from:
// the signal types and the functions beyond standard CEL. Registering the
// types is the costly part of an environment, so it is built once and
// extended with each signature's variables (an Env is immutable and safe
// to share).
var typesEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		ext.NativeTypes(reflect.TypeFor[Event](), reflect.TypeFor[Burst](), reflect.TypeFor[Row](), ext.ParseStructTag("json")),
		ext.Strings(),
		ext.Lists(ext.ListsVersion(2)),
		ext.Bindings(ext.BindingsVersion(0)),
		cel.Function("hostkey", cel.Overload("hostkey_string", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(detectors.HostKey(string(v.(types.String)))) }))),
		// complete and name read what the run learned of datanodes'
		// identities: each detector binds them to its Env (identityFuncs).
		cel.Function("complete", cel.Overload("complete_datanode", []*cel.Type{datanodeType}, datanodeType, cel.LateFunctionBinding())),
		cel.Function("name", cel.Overload("name_datanode", []*cel.Type{datanodeType}, cel.StringType, cel.LateFunctionBinding())),
		cel.Function("human", cel.Overload("human_duration", []*cel.Type{cel.DurationType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(Human(v.Value().(time.Duration))) }))),
		cel.Function("stamp", cel.Overload("stamp_timestamp", []*cel.Type{cel.TimestampType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(detectors.Stamp(v.Value().(time.Time).UTC())) }))),
		millisFn,
	)
})

// extend returns the types environment with opts.
func extend(opts ...cel.EnvOption) (*cel.Env, error) {
	env, err := typesEnv()
	if err != nil {
		return nil, err
	}
	return env.Extend(opts...)
}

// attrRef finds e.attrs["name"] and e.attrs.name in an expression.
var attrRef = regexp.MustCompile(`attrs(?:\[\s*"(\w+)"\s*\]|\.(\w+))`)

// check compiles src in env and requires its type.
func (c *compiler) check(env *cel.Env, src Expr, want *cel.Type, what string) *cel.Ast {
	for _, m := range attrRef.FindAllStringSubmatch(src.Src, -1) {
		name := m[1] + m[2]
		if typ, typed := groupTypes[name]; typed {
			c.errorf(src.Pos, "%s: a group named %q fills the signal's typed field (%s), never attrs: read it as a field (see the signal fields in docs/signatures.md) or rename the group", what, name, typ)
			return nil
		}
	}
	ast, iss := env.Compile(src.Src)
	if iss != nil && iss.Err() != nil {
		for _, e := range iss.Errors() {
			loc := e.Location
			p := src.Pos
			switch {
			case src.Block:
				p = Pos{src.Pos.Line + loc.Line(), loc.Column() + 1}
			case loc.Line() > 1:
				p = Pos{src.Pos.Line + loc.Line() - 1, loc.Column() + 1}
			default:
				p.Col += loc.Column()
				if src.Quoted {
					p.Col++
				}
			}
			c.errorf(p, "%s: %s (in %q)", what, e.Message, oneLine(src.Src))
		}
		return nil
	}
	if want != nil && !ast.OutputType().IsExactType(want) && ast.OutputType() != cel.DynType {
		c.errorf(src.Pos, "%s: %q has type %s, want %s", what, oneLine(src.Src), ast.OutputType(), want)
		return nil
	}
	return ast
}

// predicate compiles a where (nil when it does not compile).
func (c *compiler) predicate(env *cel.Env, src Expr, what string) *predicate {
	ast := c.check(env, src, cel.BoolType, what)
	if ast == nil {
		return nil
	}
	return newPredicate(c.programOf(env, src, ast, what), ast)
}

func (c *compiler) program(env *cel.Env, src Expr, want *cel.Type, what string) cel.Program {
	ast := c.check(env, src, want, what)
	if ast == nil {
		return nil
	}
	return c.programOf(env, src, ast, what)
}

// programOf plans the checked expression src.
func (c *compiler) programOf(env *cel.Env, src Expr, ast *cel.Ast, what string) cel.Program {
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		c.errorf(src.Pos, "%s: %v", what, err)
		return nil
	}
	return prg
}

// env is the base environment plus e (unless noEvent) and the bound steps.
func (c *compiler) env(bound []step, withEvent bool) *cel.Env {
	key := [2]int{len(bound), 0} // bound is always the first steps of the match (and then the corroborations)
	if withEvent {
		key[1] = 1
	}
	if env, ok := c.envs[key]; ok {
		return env
	}
	opts := slices.Clone(c.base)
	if withEvent {
		opts = append(opts, cel.Variable("e", eventType))
	}
	for _, st := range bound {
		if st.absent {
			continue
		}
		if st.count != nil {
			opts = append(opts, cel.Variable(st.name, burstType))
		} else {
			opts = append(opts, cel.Variable(st.name, eventType))
		}
	}
	env, err := extend(opts...)
	if err != nil {
		panic(fmt.Sprintf("signature environment: %v", err)) // the options are ours
	}
	if c.envs == nil {
		c.envs = map[[2]int]*cel.Env{}
	}
	c.envs[key] = env
	return env
}

var stepNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func (c *compiler) compileMatch(s *Signature) {
	m := c.file.Match
	if len(m.Steps) == 0 {
		c.errorf(m.Pos, "match: missing steps")
		return
	}
	if !m.Horizon.Set() {
		c.errorf(m.Pos, "match: missing horizon (how long an open instance is remembered without a new signal)")
	}
	if m.MaxOpen <= 0 {
		c.errorf(m.Pos, "match: missing max_open (the open instances kept at most; the oldest is evicted and counted)")
	}
	env0 := c.env(nil, true)
	s.match.maxOpen = m.MaxOpen
	s.match.horizon = c.duration(m.Horizon, "match.horizon")
	s.match.skew = c.duration(m.Skew, "match.skew")
	if m.By.Set() {
		if ast := c.check(env0, m.By, cel.StringType, "match.by"); ast != nil {
			s.match.by, s.match.byPlan = c.programOf(env0, m.By, ast, "match.by"), newKeyPlan(ast)
		}
	}
	names := map[string]bool{"e": true, "params": true, "windows": true, "occurrence": true}
	c.names = names
	for i, st := range m.Steps {
		if !stepNameRe.MatchString(st.Name) {
			c.errorf(st.Pos, "step %d: name %q: want lower_case (it names the bound signal in later expressions)", i+1, st.Name)
		} else if names[st.Name] {
			c.errorf(st.Pos, "step %d: name %q is already taken", i+1, st.Name)
		}
		names[st.Name] = true
		cs := step{name: st.Name, absent: st.Absent}
		env := c.env(s.match.steps, true)
		alts := st.AnyOf
		if len(st.On) > 0 || st.Where.Set() {
			if len(alts) > 0 {
				c.errorf(st.Pos, "step %s: give on/where or any_of, not both", st.Name)
			}
			alts = []Alt{{On: st.On, Where: st.Where, By: st.By, Pos: st.Pos, FollowedBy: st.FollowedBy}}
		} else if st.By.Set() {
			c.errorf(st.Pos, "step %s: by belongs to on/where or to each any_of alternative", st.Name)
		}
		if len(alts) == 0 {
			c.errorf(st.Pos, "step %s: missing on (the signal kinds it matches)", st.Name)
		}
		if st.FollowedBy != nil && len(st.On) == 0 {
			c.errorf(st.Pos, "step %s: followed_by belongs to on/where or to each any_of alternative", st.Name)
		}
		cs.alts = c.alts(env, alts, "step "+st.Name)
		if st.Within.Set() {
			cs.within = c.duration(st.Within, "step "+st.Name+" within")
		} else if i == 0 && st.Count != nil {
			c.errorf(st.Pos, "step %s: a count step needs within (the window it counts in)", st.Name)
		} else if st.Absent {
			c.errorf(st.Pos, "step %s: an absent step needs within (how long the signal must stay away)", st.Name)
		}
		if st.Absent && st.Count != nil {
			c.errorf(st.Pos, "step %s: absent and count exclude each other", st.Name)
		}
		if st.Absent && i == 0 {
			c.errorf(st.Pos, "step %s: a sequence cannot start with an absent step", st.Name)
		}
		if st.Count != nil {
			cs.count = &count{min: c.program(c.env(s.match.steps, false), st.Count.Min, cel.IntType, "step "+st.Name+" count.min")}
			if !st.Count.Min.Set() {
				c.errorf(st.Pos, "step %s: count needs min", st.Name)
			}
			if st.Count.Distinct.Set() {
				cs.count.distinct = c.program(env, st.Count.Distinct, cel.StringType, "step "+st.Name+" count.distinct")
			}
			cs.count.each = c.each(s.match.steps, st, cs.count.distinct)
			c.compilePer(cs.count, st, env)
		}
		if st.Emit != nil {
			bound := append(slices.Clone(s.match.steps), cs)
			cs.emit = c.emit(c.withCorroborations(c.env(bound, false)), st.Emit, "step "+st.Name+" emit")
		}
		s.match.steps = append(s.match.steps, cs)
	}
	if !slices.ContainsFunc(s.match.steps, func(st step) bool { return st.emit != nil }) {
		c.errorf(m.Pos, "match: no step emits a finding (add emit: {severity: warning} to the step that decides)")
	}
	for _, co := range m.Corroborate {
		if !stepNameRe.MatchString(co.Name) {
			c.errorf(co.Pos, "corroborate: name %q: want lower_case (it names the bound signal in facts and templates)", co.Name)
		} else if names[co.Name] {
			c.errorf(co.Pos, "corroborate: name %q is already taken", co.Name)
		}
		names[co.Name] = true
		alts := c.alts(env0, []Alt{{On: co.On, Where: co.Where, By: co.By, Confidence: co.Confidence, Pos: co.Pos}}, "corroborate "+co.Name)
		if slices.Contains(co.On, string(catalogue.MetricSample)) && len(c.file.Metrics) == 0 {
			c.errorf(co.Pos, "corroborate %s: on metric_sample needs the metric names under metrics: (only those are read from /prom)", co.Name)
		}
		s.match.corroborate = append(s.match.corroborate, c.anyKey(co, step{name: co.Name, alts: alts}))
	}
	envAll := c.env(s.match.steps, true)
	if m.Until != nil {
		if m.Until.Quiet.Set() {
			c.errorf(m.Until.Pos, "until: quiet belongs to resolve")
		}
		if m.Until.After != "" {
			c.errorf(m.Until.Pos, "until: after belongs to resolve")
		}
		s.match.until = &cond{name: c.condName(m.Until, "until"),
			alts: c.alts(envAll, []Alt{{On: m.Until.On, Where: m.Until.Where, By: m.Until.By, Pos: m.Until.Pos}}, "until")}
	}
	if r := m.Resolve; r != nil {
		s.match.resolve = &cond{name: c.condName(r, "resolve")}
		if len(r.On) > 0 {
			s.match.resolve.alts = c.alts(envAll, []Alt{{On: r.On, Where: r.Where, By: r.By, Pos: r.Pos}}, "resolve")
		}
		if r.Quiet.Set() {
			s.match.resolve.quiet = c.duration(r.Quiet, "resolve.quiet")
		}
		c.compileAfter(s, r)
		if len(r.On) == 0 && !r.Quiet.Set() {
			c.errorf(r.Pos, "resolve: give on (a signal that ends the problem) or quiet (how long without a signal)")
		}
		if r.Name != "" && len(r.On) == 0 {
			c.errorf(r.Pos, "resolve %s: a name binds the signal that resolved, so it needs on", r.Name)
		}
	}
	if m.Key.Set() {
		env, err := c.env(s.match.steps, false).Extend(cel.Variable("occurrence", cel.IntType))
		if err != nil {
			panic(fmt.Sprintf("signature environment: %v", err)) // the options are ours
		}
		s.match.key = c.program(env, m.Key, cel.StringType, "match.key")
	}
}

// condName checks the name an until or resolve gives the signal that met
// it.
func (c *compiler) condName(cd *Cond, what string) string {
	switch {
	case cd.Name == "":
	case !stepNameRe.MatchString(cd.Name):
		c.errorf(cd.Pos, "%s: name %q: want lower_case (it names the signal in facts and templates)", what, cd.Name)
	case c.names[cd.Name]:
		c.errorf(cd.Pos, "%s: name %q is already taken", what, cd.Name)
	}
	if cd.Name != "" {
		c.names[cd.Name] = true
	}
	return cd.Name
}

// compileTables compiles the running tables: a run table's expressions
// see the signal alone, an incident table's the incident's steps too.
func (c *compiler) compileTables(s *Signature) {
	env0, envAll := c.env(nil, true), c.env(s.match.steps, true)
	for _, t := range c.file.Match.Tables {
		what := "table " + t.Name
		switch {
		case !stepNameRe.MatchString(t.Name):
			c.errorf(t.Pos, "table: name %q: want lower_case (it names the table's rows in later expressions)", t.Name)
		case c.names[t.Name]:
			c.errorf(t.Pos, "table: name %q is already taken", t.Name)
		}
		c.names[t.Name] = true
		ct := table{name: t.Name, maxRows: t.MaxRows}
		switch t.Scope {
		case "", "incident":
		case "run":
			ct.run = true
		default:
			c.errorf(t.Pos, "%s: scope %q: want incident (rows of one incident's signals) or run (rows kept across the run)", what, t.Scope)
		}
		switch t.AsOf {
		case "", "now":
		case "open":
			ct.asOfOpen = true
			if !ct.run {
				c.errorf(t.Pos, "%s: as_of belongs to run tables (an incident table is its own)", what)
			}
		default:
			c.errorf(t.Pos, "%s: as_of %q: want now (the rows as they stand) or open (as they stood when the incident opened)", what, t.AsOf)
		}
		if t.MaxRows <= 0 {
			c.errorf(t.Pos, "%s: missing max_rows (the rows kept at most; the oldest is evicted and counted)", what)
		}
		env := envAll
		if ct.run {
			env = env0
		}
		ct.alts = c.alts(env, []Alt{{On: t.On, Where: t.Where, Pos: t.Pos}}, what)
		if t.Row.Set() {
			ct.row = c.listOrOne(env, t.Row, cel.StringType, what+" row")
		} else {
			c.errorf(t.Pos, "%s: missing row (an expression giving the row key of a signal, e.g. e.datanode.uuid)", what)
		}
		if r := t.Remove; r != nil {
			if r.Name != "" || r.By.Set() || r.Quiet.Set() {
				c.errorf(r.Pos, "%s remove: give on and where only", what)
			}
			ct.remove = c.alts(env, []Alt{{On: r.On, Where: r.Where, Pos: r.Pos}}, what+" remove")
		}
		if t.Horizon.Set() {
			if !ct.run {
				c.errorf(t.Pos, "%s: horizon belongs to run tables (an incident table lives as long as its incident)", what)
			}
			ct.horizon = c.duration(t.Horizon, what+" horizon")
		}
		s.match.tables = append(s.match.tables, ct)
	}
}

// outputEnv is what the outputs (let, severity, confidence, entities,
// facts, evidence) see: the steps and corroborations, the signals until
// and resolve bound, the tables and the let values before.
func (c *compiler) outputEnv(s *Signature) *cel.Env {
	env := c.env(append(slices.Clone(s.match.steps), s.match.corroborate...), false)
	var opts []cel.EnvOption
	for _, cd := range []*cond{s.match.until, s.match.resolve} {
		if cd != nil && cd.name != "" {
			opts = append(opts, cel.Variable(cd.name, eventType))
		}
	}
	for _, t := range s.match.tables {
		opts = append(opts, cel.Variable(t.name, cel.ListType(rowType)))
	}
	if len(opts) == 0 {
		return env
	}
	env, err := env.Extend(opts...)
	if err != nil {
		panic(fmt.Sprintf("signature environment: %v", err)) // the options are ours
	}
	return env
}

func (c *compiler) alts(env *cel.Env, alts []Alt, what string) []alt {
	var out []alt
	for _, a := range alts {
		ca := alt{}
		if len(a.On) == 0 {
			c.errorf(a.Pos, "%s: missing on (the signal kinds it matches)", what)
		}
		for _, k := range a.On {
			if !c.kinds[catalogue.Kind(k)] {
				c.errorf(a.Pos, "%s: unknown signal kind %q (see `ozdoctor catalogue`, or add it under signals:)", what, k)
			}
			ca.kinds = append(ca.kinds, catalogue.Kind(k))
		}
		if a.Where.Set() {
			ca.where = c.predicate(env, a.Where, what+" where")
		}
		if a.By.Set() {
			ca.by = c.program(env, a.By, cel.StringType, what+" by")
		}
		ca.confidence = c.value(env, a.Confidence, what+" confidence", confidences)
		ca.follow = c.compileFollow(a.FollowedBy, what)
		out = append(out, ca)
	}
	return out
}

var (
	severities  = []string{"info", "warning", "critical"}
	confidences = []string{"low", "medium", "high"}
)

func (c *compiler) emit(env *cel.Env, e *Emit, what string) *emit {
	out := &emit{severity: c.value(env, e.Severity, what+" severity", severities),
		confidence: c.value(env, e.Confidence, what+" confidence", confidences)}
	switch e.State {
	case "", "firing":
	case "pending":
		out.pending = true
	default:
		c.errorf(e.Severity.Pos, "%s: state %q: want firing or pending", what, e.State)
	}
	return out
}

// value compiles a literal among allowed, or an expression giving a string.
func (c *compiler) value(env *cel.Env, src Expr, what string, allowed []string) valueExpr {
	v := strings.TrimSpace(src.Src)
	if v == "" || slices.Contains(allowed, v) {
		return valueExpr{lit: v}
	}
	if kindRe.MatchString(v) && !strings.ContainsAny(v, ".()") {
		c.errorf(src.Pos, "%s: %q: want %s, or an expression giving one", what, v, strings.Join(allowed, ", "))
		return valueExpr{}
	}
	return valueExpr{prg: c.program(env, src, cel.StringType, what)}
}

func (c *compiler) duration(src Expr, what string) durationExpr {
	if !src.Set() {
		return durationExpr{}
	}
	if d, ok := literalDuration(src.Src); ok {
		return durationExpr{set: true, lit: d}
	}
	return durationExpr{set: true, prg: c.program(c.env(nil, false), src, cel.DurationType, what)}
}

func (c *compiler) outputs(s *Signature) {
	// The outputs see every step and every corroboration (unbound ones
	// leave their facts and entities empty), the tables, and the let
	// values in order.
	env := c.outputEnv(s)
	for _, l := range c.file.Let {
		what := "let " + l.Name
		switch {
		case !stepNameRe.MatchString(l.Name):
			c.errorf(l.Pos, "let: name %q: want lower_case (it names the value in later expressions)", l.Name)
			continue
		case c.names[l.Name]:
			c.errorf(l.Pos, "let: name %q is already taken", l.Name)
			continue
		}
		c.names[l.Name] = true
		ast := c.check(env, l.Value, nil, what)
		if ast == nil {
			continue
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
		if err != nil {
			c.errorf(l.Value.Pos, "%s: %v", what, err)
			continue
		}
		s.lets = append(s.lets, named{name: l.Name, prg: prg})
		next, err := env.Extend(cel.Variable(l.Name, ast.OutputType()))
		if err != nil {
			c.errorf(l.Value.Pos, "%s: %v", what, err)
			continue
		}
		env = next
	}
	m := c.file.Match
	s.match.severity = c.value(env, m.Severity, "match.severity", severities)
	s.match.confidence = c.value(env, m.Confidence, "match.confidence", confidences)
	ent := c.file.Entities
	progs := func(xs []Expr, want *cel.Type, what string) []cel.Program {
		var out []cel.Program
		for _, x := range xs {
			if p := c.listOrOne(env, x, want, "entities."+what); p != nil {
				out = append(out, p)
			}
		}
		return out
	}
	s.entities = entityProgs{
		hosts:      progs(ent.Hosts, cel.StringType, "hosts"),
		datanodes:  progs(ent.Datanodes, datanodeType, "datanodes"),
		containers: progs(ent.Containers, cel.IntType, "containers"),
		pipelines:  progs(ent.Pipelines, cel.StringType, "pipelines"),
		groups:     progs(ent.RaftGroups, cel.StringType, "raft_groups"),
		oms:        progs(ent.OMNodes, cel.StringType, "om_nodes"),
	}
	for _, f := range c.file.Facts {
		if p := c.program(env, f.Value, nil, "fact "+f.Name); p != nil {
			s.facts = append(s.facts, named{name: f.Name, prg: p})
		}
	}
	s.doc.Kinds = appendKinds(s.doc.Kinds, s.followKinds())
	for _, x := range c.file.AffectedHosts {
		if p := c.listOrOne(env, x, cel.StringType, "affected_hosts"); p != nil {
			s.affected = append(s.affected, p)
		}
	}
	for _, x := range c.file.Evidence {
		if p := c.listOrOne(env, x, eventType, "evidence", rowType); p != nil {
			s.evidence = append(s.evidence, p)
		}
	}
	for _, st := range append(slices.Clone(s.match.steps), s.match.corroborate...) {
		for _, a := range st.alts {
			s.doc.Kinds = appendKinds(s.doc.Kinds, a.kinds)
		}
		if st.count != nil && st.count.each != nil {
			s.doc.Kinds = appendKinds(s.doc.Kinds, st.count.each.alts[0].kinds)
		}
	}
	for _, t := range s.match.tables {
		for _, a := range append(slices.Clone(t.alts), t.remove...) {
			s.doc.Kinds = appendKinds(s.doc.Kinds, a.kinds)
		}
	}
	for _, cd := range []*cond{s.match.until, s.match.resolve} {
		if cd != nil {
			for _, a := range cd.alts {
				s.doc.Kinds = appendKinds(s.doc.Kinds, a.kinds)
			}
		}
	}
	s.match.takes = instanceKinds(&s.match)
	if s.match.by != nil {
		s.bys = append(s.bys, s.match.by)
	}
	for _, st := range s.match.steps {
		for _, a := range st.alts {
			if a.by != nil {
				s.bys = append(s.bys, a.by)
			}
		}
	}
	for _, cd := range []*cond{s.match.until, s.match.resolve} {
		if cd != nil {
			for _, a := range cd.alts {
				if a.by != nil {
					s.bys = append(s.bys, a.by)
				}
			}
		}
	}
	s.doc.Horizon = s.match.horizon.lit
	if s.match.horizon.prg != nil {
		s.doc.Horizon = 0 // from the settings: the detector states it at run time
	}
}

// instanceKinds returns the kinds an open instance can take: its steps',
// their each follow-ups', until's and resolve's, and its incident
// tables'. A signal of another kind (a pair's follower) is offered to none.
func instanceKinds(m *match) map[catalogue.Kind]bool {
	out := map[catalogue.Kind]bool{}
	add := func(alts []alt) {
		for _, a := range alts {
			for _, k := range a.kinds {
				out[k] = true
			}
		}
	}
	for _, st := range m.steps {
		add(st.alts)
		if st.count != nil && st.count.each != nil {
			add(st.count.each.alts)
		}
	}
	for _, cd := range []*cond{m.until, m.resolve} {
		if cd != nil {
			add(cd.alts)
		}
	}
	for _, t := range m.tables {
		if !t.run {
			add(t.alts)
			add(t.remove)
		}
	}
	return out
}

// listOrOne compiles an expression giving one elem (or one of also), or
// a list of them (or of lists of them).
func (c *compiler) listOrOne(env *cel.Env, src Expr, elem *cel.Type, what string, also ...*cel.Type) cel.Program {
	ast := c.check(env, src, nil, what)
	if ast == nil {
		return nil
	}
	fits := func(t *cel.Type) bool {
		return t.IsExactType(elem) || t.IsExactType(cel.DynType) || slices.ContainsFunc(also, t.IsExactType)
	}
	t := ast.OutputType()
	ok := fits(t)
	for u := t; !ok && u.Kind() == types.ListKind && len(u.Parameters()) == 1; { // a list of lists too: forEach flattens them
		u = u.Parameters()[0]
		ok = fits(u)
	}
	if !ok {
		want := elem.String()
		for _, a := range also {
			want += " or " + a.String()
		}
		c.errorf(src.Pos, "%s: %q has type %s, want %s, or a list", what, oneLine(src.Src), t, want)
		return nil
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		c.errorf(src.Pos, "%s: %v", what, err)
		return nil
	}
	return prg
}

func appendKinds(dst, ks []catalogue.Kind) []catalogue.Kind {
	for _, k := range ks {
		if !slices.Contains(dst, k) {
			dst = append(dst, k)
		}
	}
	return dst
}

// literalDuration reads a constant duration: Go's syntax ("90s", "1h30m")
// or a number of days ("7d").
func literalDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if d, err := time.ParseDuration(v); err == nil {
		return d, true
	}
	if n, ok := strings.CutSuffix(v, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return time.Duration(days) * 24 * time.Hour, true
		}
	}
	return 0, false
}

// settingDuration reads a duration setting as Ozone's getTimeDuration
// does (a bare number in milliseconds), or def when it is not set.
func settingDuration(cfg *site.Config, key string, def time.Duration) time.Duration {
	if v, _, ok := cfg.Get(key); ok {
		if d, err := site.ParseDuration(v, time.Millisecond); err == nil {
			return d
		}
	}
	return def
}

// Human renders a duration as Ozone's settings write it: "30s", "5m",
// "1h30m", "250ms".
func Human(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d >= time.Minute || d <= -time.Minute:
		d = d.Round(time.Second)
	case d >= time.Second || d <= -time.Second:
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Entries returns the message entries the signature adds to the catalogue.
func (s *Signature) Entries() []catalogue.Entry { return s.entries }
