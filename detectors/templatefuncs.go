package detectors

import (
	"fmt"
	"maps"
	"strings"
	"text/template"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

var templateFuncs = template.FuncMap{
	// join joins any slice with ", ".
	"join": func(v any) string {
		switch xs := v.(type) {
		case []string:
			return strings.Join(xs, ", ")
		case []uint64:
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = fmt.Sprint(x)
			}
			return strings.Join(parts, ", ")
		case []catalogue.Datanode:
			parts := make([]string, len(xs))
			for i, d := range xs {
				parts[i] = DatanodeName(d)
			}
			return strings.Join(parts, ", ")
		}
		return fmt.Sprint(v)
	},
	"fact": func(f *Finding, k string) string { return f.Facts[k] },
}

// DatanodeName renders a datanode as "host (uuid)", or whichever is known.
func DatanodeName(d catalogue.Datanode) string {
	switch {
	case d.Host != "" && d.UUID != "":
		return d.Host + " (" + d.UUID + ")"
	case d.Host != "":
		return d.Host
	}
	return d.UUID
}

// TemplateFuncs returns the functions remediation templates may call
// (join, fact), for templates executed outside the engine (a signature's
// summary).
func TemplateFuncs() template.FuncMap { return maps.Clone(templateFuncs) }
