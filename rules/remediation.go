package rules

import (
	"fmt"
	"regexp"
	"strings"
	"text/template/parse"

	"github.com/ozdoctor/ozdoctor/detectors"
)

// GenericRemediation renders a detector's remediation templates (text/template
// strings over one Finding) for an alert rule, which fires before any
// finding's entities and facts are known. Template actions become
// placeholders (`<container>`, `<om_node>`, `<datanode host>`), conditions on
// the finding's severity are decided by critical, conditions on facts keep
// both branches as "[if outcome is dead] … [otherwise] …", and conditions on
// whether entities are known keep the branch that names them. The Doc stays
// the only copy of the steps.
func GenericRemediation(d detectors.Doc, critical bool) (string, error) {
	var b strings.Builder
	for i, t := range d.Remediation {
		tree := parse.New(fmt.Sprint(d.Name, i))
		tree.Mode = parse.SkipFuncCheck
		if _, err := tree.Parse(t, "{{", "}}", map[string]*parse.Tree{}); err != nil {
			return "", fmt.Errorf("%s remediation step %d: %w", d.Name, i+1, err)
		}
		r := &renderer{critical: critical, vars: map[string]string{}}
		root := tree.Root
		r.list(root, "<value>")
		if r.err != nil {
			return "", fmt.Errorf("%s remediation step %d: %w", d.Name, i+1, r.err)
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, tidy(r.b.String()))
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

var spaceBeforePunct = regexp.MustCompile(`\] ([.,;:)])`)

// tidy collapses the spaces the bracketed branches leave.
func tidy(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return strings.TrimSpace(spaceBeforePunct.ReplaceAllString(s, "]$1"))
}

type renderer struct {
	b        strings.Builder
	critical bool
	vars     map[string]string // $variable -> placeholder
	err      error
}

func (r *renderer) list(l *parse.ListNode, dot string) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		r.node(n, dot)
	}
}

func (r *renderer) node(n parse.Node, dot string) {
	switch n := n.(type) {
	case *parse.TextNode:
		r.b.Write(n.Text)
	case *parse.ActionNode:
		r.b.WriteString(r.placeholder(n.Pipe, dot))
	case *parse.IfNode:
		r.branch(n.Pipe, n.List, n.ElseList, dot, false)
	case *parse.WithNode:
		r.branch(n.Pipe, n.List, n.ElseList, dot, true)
	case *parse.RangeNode:
		elem := "<" + singular(r.placeholderName(n.Pipe, dot)) + ">"
		for i, v := range n.Pipe.Decl {
			if i == len(n.Pipe.Decl)-1 {
				r.vars[v.Ident[0]] = elem
			} else {
				r.vars[v.Ident[0]] = "" // the index: conditions on it are dropped
			}
		}
		r.list(n.List, elem)
	default:
		r.err = fmt.Errorf("template node %s not supported in rule remediation", n)
	}
}

// branch renders an if or with node.
func (r *renderer) branch(pipe *parse.PipeNode, list, elseList *parse.ListNode, dot string, with bool) {
	cond := pipe.String()
	switch {
	case strings.Contains(cond, ".Severity"):
		// Decided per alert: the caller renders both severities.
		want := strings.Contains(cond, `"critical"`) == r.critical
		if strings.HasPrefix(cond, "ne ") {
			want = !want
		}
		if want {
			r.list(list, dot)
		} else {
			r.list(elseList, dot)
		}
	case len(pipe.Cmds) == 1 && len(pipe.Cmds[0].Args) == 1 && !with:
		// Truthiness of an entity list or a range index: keep the branch
		// that names the entities, drop the separators.
		if v, ok := pipe.Cmds[0].Args[0].(*parse.VariableNode); ok && r.vars[v.Ident[0]] == "" {
			r.list(elseList, dot)
			return
		}
		r.list(list, dot)
	default:
		inner := dot
		desc := r.describe(pipe, dot)
		if with {
			inner = r.placeholder(pipe, dot)
			if elseList == nil {
				// An optional detail: print it with its placeholder.
				r.list(list, inner)
				return
			}
			desc = r.placeholderName(pipe, dot) + " is known"
		}
		r.b.WriteString("[if " + desc + "] ")
		r.list(list, inner)
		if elseList != nil {
			r.b.WriteString(" [otherwise] ")
			r.list(elseList, dot)
		}
		r.b.WriteString(" [end] ")
	}
}

// describe turns a condition into words: eq (fact . "outcome") "dead" →
// `outcome is "dead"`.
func (r *renderer) describe(pipe *parse.PipeNode, dot string) string {
	if len(pipe.Cmds) != 1 {
		return pipe.String()
	}
	return r.describeCmd(pipe.Cmds[0], dot)
}

func (r *renderer) describeCmd(c *parse.CommandNode, dot string) string {
	if len(c.Args) == 0 {
		return ""
	}
	if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
		switch id.Ident {
		case "eq", "ne":
			if len(c.Args) == 3 {
				op := " is "
				if id.Ident == "ne" {
					op = " is not "
				}
				return r.argName(c.Args[1], dot) + op + r.argName(c.Args[2], dot)
			}
		case "or", "and":
			parts := make([]string, 0, len(c.Args)-1)
			for _, a := range c.Args[1:] {
				if p, ok := a.(*parse.PipeNode); ok && len(p.Cmds) == 1 {
					parts = append(parts, r.describeCmd(p.Cmds[0], dot))
				} else {
					parts = append(parts, r.argName(a, dot))
				}
			}
			return strings.Join(parts, " "+id.Ident+" ")
		}
	}
	return c.String()
}

func (r *renderer) argName(a parse.Node, dot string) string {
	switch a := a.(type) {
	case *parse.StringNode:
		return a.Text
	case *parse.PipeNode:
		return r.placeholderName(a, dot)
	}
	return a.String()
}

// placeholder is what an action prints: <name>.
func (r *renderer) placeholder(pipe *parse.PipeNode, dot string) string {
	if len(pipe.Cmds) == 1 && len(pipe.Cmds[0].Args) == 1 {
		switch a := pipe.Cmds[0].Args[0].(type) {
		case *parse.DotNode:
			return dot
		case *parse.VariableNode:
			if p := r.vars[a.Ident[0]]; p != "" {
				return p
			}
		}
	}
	return "<" + r.placeholderName(pipe, dot) + ">"
}

// placeholderName names the value of a pipeline in words.
func (r *renderer) placeholderName(pipe *parse.PipeNode, dot string) string {
	if len(pipe.Cmds) != 1 {
		return "value"
	}
	c := pipe.Cmds[0]
	if len(c.Args) == 0 {
		return "value"
	}
	switch a := c.Args[0].(type) {
	case *parse.IdentifierNode:
		switch a.Ident {
		case "fact":
			if len(c.Args) == 3 {
				if s, ok := c.Args[2].(*parse.StringNode); ok {
					return s.Text
				}
			}
		case "index":
			if len(c.Args) >= 2 {
				return singular(fieldWords(c.Args[1]))
			}
		case "join":
			if len(c.Args) == 2 {
				return fieldWords(c.Args[1])
			}
		case "len":
			if len(c.Args) == 2 {
				return "number of " + fieldWords(c.Args[1])
			}
		}
	case *parse.ChainNode:
		if p, ok := a.Node.(*parse.PipeNode); ok {
			return r.placeholderName(p, dot) + " " + strings.ToLower(strings.Join(a.Field, " "))
		}
	case *parse.FieldNode:
		return fieldWords(a)
	case *parse.DotNode:
		return strings.Trim(dot, "<>")
	case *parse.VariableNode:
		if p := r.vars[a.Ident[0]]; p != "" {
			return strings.Trim(p, "<>")
		}
	}
	return "value"
}

var fieldNames = map[string]string{
	"Containers": "containers", "Datanodes": "datanodes", "Pipelines": "pipelines",
	"RaftGroups": "raft groups", "Hosts": "hosts", "OMNodes": "OM nodes", "Severity": "severity",
}

func fieldWords(n parse.Node) string {
	f, ok := n.(*parse.FieldNode)
	if !ok || len(f.Ident) == 0 {
		return "value"
	}
	last := f.Ident[len(f.Ident)-1]
	if last == "String" && len(f.Ident) > 1 {
		last = f.Ident[len(f.Ident)-2]
	}
	if w, ok := fieldNames[last]; ok {
		return w
	}
	return strings.ToLower(last)
}

func singular(s string) string {
	return strings.TrimSuffix(s, "s")
}
