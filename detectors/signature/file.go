package signature

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format is the signature format version this package reads.
const Format = "v1"

// File is a signature file as written: one problem, how to recognise it
// and what to tell the operator (docs/signatures.md is the reference).
type File struct {
	Signature      string         `yaml:"signature"`
	ID             string         `yaml:"id"`
	Version        string         `yaml:"version"`
	Status         string         `yaml:"status"`
	Defect         string         `yaml:"defect"`
	Problem        string         `yaml:"problem"`
	Title          string         `yaml:"title"`
	Description    string         `yaml:"description"`
	Explanation    string         `yaml:"explanation"`
	References     []string       `yaml:"references"`
	Needs          []string       `yaml:"needs"`
	Affected       string         `yaml:"affected"`
	AffectedHosts  []Expr         `yaml:"affected_hosts"`
	FixedIn        []string       `yaml:"fixed_in"`
	VersionsRead   string         `yaml:"versions_read"`
	Params         Ordered[Param] `yaml:"params"`
	Windows        Ordered[Expr]  `yaml:"windows"`
	Signals        []SignalDef    `yaml:"signals"`
	Match          Match          `yaml:"match"`
	Let            Ordered[Expr]  `yaml:"let"`
	Entities       EntityExprs    `yaml:"entities"`
	Facts          Ordered[Expr]  `yaml:"facts"`
	Evidence       []Expr         `yaml:"evidence"`
	Summary        Text           `yaml:"summary"`
	Remediation    []Text         `yaml:"remediation"`
	FalsePositives []string       `yaml:"false_positives"`
	Resolves       string         `yaml:"resolves"`
	Metrics        []string       `yaml:"metrics"`
	Tests          []string       `yaml:"tests"`
	pos            map[string]Pos // of the top-level keys
	hash           string         // of the parts that decide the state (hashState)
}

// Param is a setting a signature declares, overridable with
// --option <id>.<name>=<value>.
type Param struct {
	Type    string `yaml:"type"` // int, duration, string, bool
	Default string `yaml:"default"`
	Min     string `yaml:"min"`
	Doc     string `yaml:"doc"`
	Pos     Pos    `yaml:"-"`
}

// SignalDef is a message entry of a signature's own: it joins the
// catalogue, its literal prefilter included.
type SignalDef struct {
	Kind     string            `yaml:"kind"`
	Source   string            `yaml:"source"`
	Loggers  []string          `yaml:"loggers"`
	Literals []string          `yaml:"literals"`
	Pattern  Expr              `yaml:"pattern"`
	Groups   map[string]string `yaml:"groups"` // named group -> type
	Pos      Pos               `yaml:"-"`
}

// Match is how the problem is recognised: a sequence of steps per join key.
type Match struct {
	By      Expr   `yaml:"by"`
	Key     Expr   `yaml:"key"` // the findings' keys; default: join key and start
	Horizon Expr   `yaml:"horizon"`
	MaxOpen int    `yaml:"max_open"`
	Skew    Expr   `yaml:"skew"`
	Steps   []Step `yaml:"steps"`
	Until   *Cond  `yaml:"until"`
	Resolve *Cond  `yaml:"resolve"`
	// Corroborate are signals that confirm an open instance without being
	// a step of it: a /prom sample, typically.
	Corroborate []Corroboration `yaml:"corroborate"`
	// Tables are running tables: rows of signals kept by a row key, per
	// incident or across the run.
	Tables []Table `yaml:"tables"`
	// Severity and Confidence, when set, are the finding's, computed
	// from the incident whenever it is rendered (they may lower what an
	// emit raised).
	Severity   Expr `yaml:"severity"`
	Confidence Expr `yaml:"confidence"`
	Pos        Pos  `yaml:"-"`
}

// Table is a running table: the signals it takes, kept by row key. An
// incident table holds what one incident took; a run table what the
// whole run saw, read by every incident as it stands (as_of: now) or as
// it stood when the incident opened (as_of: open). The doc tags are the
// reference (docs/signatures.md, TableKeys).
type Table struct {
	Name    string `yaml:"name" doc:"required, lower_case: the name expressions read the table's rows under (a list of Row)"`
	Scope   string `yaml:"scope" doc:"incident (default): rows of one incident's signals, which live as long as it; run: rows kept across the run, whatever the incidents"`
	AsOf    string `yaml:"as_of" doc:"run tables: now (default), the rows as they stand (an open finding is rendered again when they change), or open, as they stood when the incident opened"`
	On      Kinds  `yaml:"on" doc:"required: the signal kinds it takes"`
	Where   Expr   `yaml:"where" doc:"a condition (bool) over e, and for an incident table over the incident's steps too"`
	Row     Expr   `yaml:"row" doc:"required: the row key of a signal (string), or the keys its row may be known by (list(string)): a signal joins the first row that has one of its keys and adds the others; a run table keys its rows by the first"`
	Remove  *Cond  `yaml:"remove" doc:"{on, where}: a signal that takes its row (by the row expression) out of the table"`
	MaxRows int    `yaml:"max_rows" doc:"required: rows kept at most (per incident, for an incident table); the oldest is evicted and counted in coverage state"`
	Horizon Expr   `yaml:"horizon" doc:"run tables: a row with no signal for this long is dropped; without it only max_rows bounds the table"`
	Pos     Pos    `yaml:"-"`
}

// TableKeys renders the keys of a table (Table) as the Markdown table of
// docs/signatures.md.
func TableKeys() string {
	var b strings.Builder
	b.WriteString("| table key | meaning |\n|---|---|\n")
	t := reflect.TypeFor[Table]()
	for i := range t.NumField() {
		f := t.Field(i)
		if k := f.Tag.Get("yaml"); k != "-" {
			b.WriteString("| `" + k + "` | " + strings.ReplaceAll(f.Tag.Get("doc"), "|", "\\|") + " |\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Step is one step of a sequence. A step matches a signal (on + where), or
// counts signals until a minimum (count), or requires that none comes
// (absent); within bounds it after the previous step.
type Step struct {
	Name   string `yaml:"name"`
	On     Kinds  `yaml:"on"`
	Where  Expr   `yaml:"where"`
	By     Expr   `yaml:"by"`
	Within Expr   `yaml:"within"`
	AnyOf  []Alt  `yaml:"any_of"`
	Count  *Count `yaml:"count"`
	Absent bool   `yaml:"absent"`
	Emit   *Emit  `yaml:"emit"`
	Pos    Pos    `yaml:"-"`

	FollowedBy *FollowedBy `yaml:"followed_by"` // pairing.go
}

// Alt is one alternative of an any_of step.
type Alt struct {
	On         Kinds `yaml:"on"`
	Where      Expr  `yaml:"where"`
	By         Expr  `yaml:"by"`
	Confidence Expr  `yaml:"confidence"`
	Pos        Pos   `yaml:"-"`

	FollowedBy *FollowedBy `yaml:"followed_by"` // pairing.go
}

// Count makes a step count matching signals: it is met when min of them
// (distinct values of distinct, when given) came within the step's window.
type Count struct {
	Min      Expr `yaml:"min"`
	Distinct Expr `yaml:"distinct"`

	Each *Each `yaml:"each"` // a follow-up every member must meet (each.go)
	Per  Expr  `yaml:"per"`  // counting.go
}

// Emit reports the finding when its step is met, or raises its severity.
type Emit struct {
	Severity   Expr   `yaml:"severity"`
	Confidence Expr   `yaml:"confidence"`
	State      string `yaml:"state"` // firing (default) or pending
}

// Cond is an until or resolve condition: a signal of the instance's key,
// or (resolve only) quiet: no signal of the instance for that long. Name,
// if given, binds the signal that met it for the outputs (a zero Event
// until then).
type Cond struct {
	Name  string `yaml:"name"`
	On    Kinds  `yaml:"on"`
	Where Expr   `yaml:"where"`
	By    Expr   `yaml:"by"`
	Quiet Expr   `yaml:"quiet"`
	Pos   Pos    `yaml:"-"`

	After string `yaml:"after"` // resolve only: quiet counts once this step is met (after.go)
}

// Corroboration is a signal that confirms an instance of its key, seen
// before or after the instance opened: bound under Name, its line joins
// the evidence, and Confidence (if given) raises the finding's.
type Corroboration struct {
	Name       string `yaml:"name"`
	On         Kinds  `yaml:"on"`
	Where      Expr   `yaml:"where"`
	By         Expr   `yaml:"by"`
	Confidence Expr   `yaml:"confidence"`
	Pos        Pos    `yaml:"-"`

	AnyKey bool `yaml:"any_key"` // corroborate_any.go
}

// EntityExprs are the expressions that fill a finding's entities.
type EntityExprs struct {
	Hosts      []Expr `yaml:"hosts"`
	Datanodes  []Expr `yaml:"datanodes"`
	Containers []Expr `yaml:"containers"`
	Pipelines  []Expr `yaml:"pipelines"`
	RaftGroups []Expr `yaml:"raft_groups"`
	OMNodes    []Expr `yaml:"om_nodes"`
}

// Pos is a place in a signature file, 1-based.
type Pos struct{ Line, Col int }

// Expr is an expression (or a pattern) with where it was written.
type Expr struct {
	Src string
	Pos Pos
	// Block says the text was a block scalar (| or >): its first line is
	// the line after Pos. Quoted says it was in quotes.
	Block, Quoted bool
}

// Text is a template (summary, remediation) with its place.
type Text = Expr

// Set reports whether an expression was written.
func (e Expr) Set() bool { return strings.TrimSpace(e.Src) != "" }

// UnmarshalYAML keeps the scalar and its position.
func (e *Expr) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &Error{Pos: Pos{n.Line, n.Column}, Msg: "expected a scalar (an expression or a string)"}
	}
	*e = Expr{Src: n.Value, Pos: Pos{n.Line, n.Column}, Block: n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0,
		Quoted: n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0}
	return nil
}

// Kinds is one signal kind or a list of them.
type Kinds []string

// UnmarshalYAML reads "kind" or "[kind, kind]".
func (k *Kinds) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*k = Kinds{n.Value}
		return nil
	}
	var xs []string
	if err := n.Decode(&xs); err != nil {
		return err
	}
	*k = xs
	return nil
}

// Ordered is a mapping whose order is kept (windows may refer to earlier
// windows; facts are listed in the order written).
type Ordered[T any] []Named[T]

// Named is one entry of an Ordered mapping.
type Named[T any] struct {
	Name  string
	Value T
	Pos   Pos
}

// UnmarshalYAML reads a mapping in order.
func (o *Ordered[T]) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &Error{Pos: Pos{n.Line, n.Column}, Msg: "expected a mapping"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var val T
		if err := v.Decode(&val); err != nil {
			return err
		}
		setPos(&val, Pos{k.Line, k.Column})
		*o = append(*o, Named[T]{Name: k.Value, Value: val, Pos: Pos{k.Line, k.Column}})
	}
	return nil
}

// Error is a problem in a signature file, at a place.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	where := e.File
	if e.Pos.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.File, e.Pos.Line, e.Pos.Col)
	}
	if where == "" {
		return e.Msg
	}
	return where + ": " + e.Msg
}

// Errors are every problem found in one file.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Parse reads a signature file strictly: YAML syntax, unknown keys at any
// level and an unknown format version are errors with their place.
func Parse(name string, data []byte) (*File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &Error{File: name, Pos: yamlErrorPos(err), Msg: "YAML: " + yamlErrorText(err)}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{File: name, Pos: Pos{1, 1}, Msg: "a signature file is a YAML mapping (signature: v1, id: ..., match: ...)"}
	}
	root := doc.Content[0]
	var errs Errors
	checkKeys(root, reflect.TypeFor[File](), "", &errs)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], root.Content[i+1]; k.Value == "signature" {
			if major, _, _ := strings.Cut(v.Value, "."); major != Format {
				errs = append(errs, &Error{Pos: Pos{v.Line, v.Column}, Msg: fmt.Sprintf("unknown signature format %q (this ozdoctor reads %s)", v.Value, Format)})
			}
		}
	}
	if len(errs) == 0 {
		f := &File{pos: map[string]Pos{}}
		if err := root.Decode(f); err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				errs = append(errs, pe)
			} else {
				errs = append(errs, &Error{Pos: yamlErrorPos(err), Msg: yamlErrorText(err)})
			}
		} else {
			for i := 0; i+1 < len(root.Content); i += 2 {
				f.pos[root.Content[i].Value] = Pos{root.Content[i].Line, root.Content[i].Column}
			}
			f.hash = hashState(root)
			if f.Signature == "" {
				errs = append(errs, &Error{Pos: Pos{1, 1}, Msg: "missing \"signature: v1\""})
			} else {
				return f, nil
			}
		}
	}
	for _, e := range errs {
		e.File = name
	}
	return nil, errs
}

// stateKeys are the top-level keys that decide what a signature's open
// state means: a reload keeps the state when they are unchanged.
var stateKeys = map[string]bool{"signals": true, "params": true, "windows": true, "match": true}

// hashState hashes the state keys' values as written, without their
// places and comments: a new title or a line added above keeps the hash.
func hashState(root *yaml.Node) string {
	h := sha256.New()
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; stateKeys[k.Value] {
			h.Write([]byte(k.Value + "\x00"))
			writeNode(h, root.Content[i+1])
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// writeNode writes n's kinds, tags and values, depth first.
func writeNode(w io.Writer, n *yaml.Node) {
	fmt.Fprintf(w, "%d\x00%s\x00%s\x00%d\x00", n.Kind, n.Tag, n.Value, len(n.Content))
	for _, c := range n.Content {
		writeNode(w, c)
	}
}

// checkKeys walks n against the Go type t and reports keys t does not
// have, with their place, and the positions of structs with a Pos field.
func checkKeys(n *yaml.Node, t reflect.Type, path string, errs *Errors) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		*errs = append(*errs, &Error{Pos: Pos{n.Line, n.Column}, Msg: "YAML aliases are not allowed in signatures"})
		return
	}
	switch {
	case t == reflect.TypeFor[Expr](), t == reflect.TypeFor[Kinds]():
		return
	case t.Kind() == reflect.Slice && strings.HasPrefix(t.Name(), "Ordered["):
		if n.Kind != yaml.MappingNode {
			return // Decode says what was expected
		}
		elem := t.Elem().Field(1).Type // Named[T].Value
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkKeys(n.Content[i+1], elem, path+n.Content[i].Value+".", errs)
		}
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		known := map[string]reflect.Type{}
		var names []string
		for i := range t.NumField() {
			tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			known[tag] = t.Field(i).Type
			names = append(names, tag)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := known[k.Value]
			if !ok {
				*errs = append(*errs, &Error{Pos: Pos{k.Line, k.Column},
					Msg: fmt.Sprintf("unknown key %q in %s (known: %s)", k.Value, strings.TrimSuffix(path, ".")+where(path), strings.Join(names, ", "))})
				continue
			}
			checkKeys(n.Content[i+1], ft, path+k.Value+".", errs)
		}
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for _, c := range n.Content {
			checkKeys(c, t.Elem(), path, errs)
		}
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkKeys(n.Content[i+1], t.Elem(), path+n.Content[i].Value+".", errs)
		}
	}
}

func where(path string) string {
	if path == "" {
		return "the signature"
	}
	return ""
}

// setPos sets the Pos field of v's struct, if it has one.
func setPos(v any, p Pos) {
	rv := reflect.ValueOf(v).Elem()
	if rv.Kind() == reflect.Struct {
		if f := rv.FieldByName("Pos"); f.IsValid() && f.Type() == reflect.TypeFor[Pos]() && f.CanSet() && f.Interface().(Pos) == (Pos{}) {
			f.Set(reflect.ValueOf(p))
		}
	}
}

// UnmarshalYAML decodes a step and keeps its place.
func (s *Step) UnmarshalYAML(n *yaml.Node) error {
	type plain Step
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.Pos = Pos{n.Line, n.Column}
	return nil
}

// UnmarshalYAML decodes an alternative and keeps its place.
func (a *Alt) UnmarshalYAML(n *yaml.Node) error {
	type plain Alt
	if err := n.Decode((*plain)(a)); err != nil {
		return err
	}
	a.Pos = Pos{n.Line, n.Column}
	return nil
}

// UnmarshalYAML decodes a condition and keeps its place.
func (c *Cond) UnmarshalYAML(n *yaml.Node) error {
	type plain Cond
	if err := n.Decode((*plain)(c)); err != nil {
		return err
	}
	c.Pos = Pos{n.Line, n.Column}
	return nil
}

// UnmarshalYAML decodes a table and keeps its place.
func (t *Table) UnmarshalYAML(n *yaml.Node) error {
	type plain Table
	if err := n.Decode((*plain)(t)); err != nil {
		return err
	}
	t.Pos = Pos{n.Line, n.Column}
	return nil
}

// UnmarshalYAML decodes a corroboration and keeps its place.
func (c *Corroboration) UnmarshalYAML(n *yaml.Node) error {
	type plain Corroboration
	if err := n.Decode((*plain)(c)); err != nil {
		return err
	}
	c.Pos = Pos{n.Line, n.Column}
	return nil
}

// UnmarshalYAML decodes the match and keeps its place.
func (m *Match) UnmarshalYAML(n *yaml.Node) error {
	type plain Match
	if err := n.Decode((*plain)(m)); err != nil {
		return err
	}
	m.Pos = Pos{n.Line, n.Column}
	return nil
}

// UnmarshalYAML decodes a message entry and keeps its place.
func (s *SignalDef) UnmarshalYAML(n *yaml.Node) error {
	type plain SignalDef
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.Pos = Pos{n.Line, n.Column}
	return nil
}

// yamlErrorPos reads "yaml: line N: ..." into a place.
func yamlErrorPos(err error) Pos {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	var line int
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i:], "line %d", &line)
	}
	if line == 0 {
		return Pos{}
	}
	return Pos{line, 1}
}

func yamlErrorText(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
