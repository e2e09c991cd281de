package detectors

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OptionKind is the type of a detector option's value.
type OptionKind int

// Option kinds.
const (
	OptionString   OptionKind = iota
	OptionInt                 // a decimal integer, at least Min
	OptionDuration            // a Go duration ("30s", "5m"), at least Min
)

func (k OptionKind) String() string {
	switch k {
	case OptionInt:
		return "integer"
	case OptionDuration:
		return "duration"
	}
	return "string"
}

// Option is a setting a detector declares, as an analysis.Analyzer declares
// its Flags. Users name it <detector-name>.<Name> (or <package>.<Name>, and
// <Name> alone when no other detector declares the same name).
type Option struct {
	Name    string // e.g. "min_burst_nodes"
	Kind    OptionKind
	Default string
	Min     string // the least value for an integer or a duration; "" for none
	Doc     string
}

// Check reads v as the option's kind and returns it in canonical form
// (durations as time.Duration.String).
func (o Option) Check(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch o.Kind {
	case OptionInt:
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("want an integer, got %q", v)
		}
		if o.Min != "" {
			if m, _ := strconv.Atoi(o.Min); n < m {
				return "", fmt.Errorf("want an integer ≥ %s, got %q", o.Min, v)
			}
		}
		return strconv.Itoa(n), nil
	case OptionDuration:
		d, err := time.ParseDuration(v)
		if err != nil {
			return "", fmt.Errorf("want a duration such as %s, got %q", o.Default, v)
		}
		if o.Min != "" {
			if m, _ := time.ParseDuration(o.Min); d < m {
				return "", fmt.Errorf("want a duration ≥ %s, got %q", o.Min, v)
			}
		}
		return d.String(), nil
	}
	return v, nil
}

// Int returns the option's value in env as an integer, and whether the user
// set it. Detectors call it at construction; the value was checked by
// ValidateOptions, or is checked here when a test builds the Env by hand.
func (d Doc) Int(env *Env, name string) (int, bool, error) {
	v, set, err := d.optionValue(env, name)
	if err != nil {
		return 0, false, err
	}
	n, _ := strconv.Atoi(v)
	return n, set, nil
}

// Duration returns the option's value in env as a duration, and whether
// the user set it.
func (d Doc) Duration(env *Env, name string) (time.Duration, bool, error) {
	v, set, err := d.optionValue(env, name)
	if err != nil {
		return 0, false, err
	}
	t, _ := time.ParseDuration(v)
	return t, set, nil
}

func (d Doc) optionValue(env *Env, name string) (string, bool, error) {
	i := slices.IndexFunc(d.Options, func(o Option) bool { return o.Name == name })
	if i < 0 {
		return "", false, fmt.Errorf("option %s is not declared by %s", name, d.Name)
	}
	o := d.Options[i]
	keys := []string{d.Name + "." + name}
	if d.Package != "" {
		keys = append(keys, d.Package+"."+name)
	}
	keys = append(keys, name)
	for _, k := range keys {
		if v, ok := env.Options[k]; ok {
			c, err := o.Check(v)
			if err != nil {
				return "", false, fmt.Errorf("option %s: %w", k, err)
			}
			return c, true, nil
		}
	}
	c, err := o.Check(o.Default)
	if err != nil {
		return "", false, fmt.Errorf("option %s default: %w", name, err)
	}
	return c, false, nil
}

// OptionKey is the user-facing name of a detector's option.
func OptionKey(d Doc, o Option) string { return d.Name + "." + o.Name }

// ValidateOptions checks user-given detector options against what the
// detectors of regs declare, before any input is opened. A key is
// <detector-name>.<option>, <package>.<option>, or <option> alone when
// exactly one detector declares it. It returns the options set, keyed by
// their canonical name <detector-name>.<option>, with canonical values;
// an unknown or ambiguous key, or a bad value, is an error that names it.
func ValidateOptions(regs []Registration, opts map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(opts))
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		d, o, err := lookupOption(regs, k)
		if err != nil {
			return nil, err
		}
		canon := OptionKey(d, o)
		v, err := o.Check(opts[k])
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", k, err)
		}
		if prev, ok := out[canon]; ok && prev != v {
			return nil, fmt.Errorf("option %s: set twice (also as %s) with different values", k, canon)
		}
		out[canon] = v
	}
	return out, nil
}

func lookupOption(regs []Registration, key string) (Doc, Option, error) {
	ns, name, namespaced := strings.Cut(key, ".")
	if !namespaced {
		name = key
	}
	type match struct {
		d Doc
		o Option
	}
	var found []match
	known := false
	for _, r := range regs {
		d := r.Doc
		if namespaced && !strings.EqualFold(ns, d.Name) && !strings.EqualFold(ns, d.Package) {
			continue
		}
		known = true
		for _, o := range d.Options {
			if o.Name == name {
				found = append(found, match{d, o})
			}
		}
	}
	switch {
	case namespaced && !known:
		return Doc{}, Option{}, fmt.Errorf("option %s: no detector named %q (see ozdoctor detectors)", key, ns)
	case len(found) == 0 && namespaced:
		return Doc{}, Option{}, fmt.Errorf("option %s: detector %s has no option %q (see ozdoctor explain %s)", key, ns, name, ns)
	case len(found) == 0:
		return Doc{}, Option{}, fmt.Errorf("option %s: no detector has this option (see ozdoctor explain)", key)
	case len(found) > 1:
		var names []string
		for _, m := range found {
			names = append(names, OptionKey(m.d, m.o))
		}
		return Doc{}, Option{}, fmt.Errorf("option %s is ambiguous: say %s", key, strings.Join(names, " or "))
	}
	return found[0].d, found[0].o, nil
}
