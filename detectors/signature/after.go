package signature

import "slices"

// resolve: {quiet: 82s, after: restart} resolves an instance once no
// signal of it came for the quiet time after the step named was met: a
// service that terminated stays firing however long it is down, and
// resolves a while after it started again (what comes in that while,
// e.g. datanodes registering with it, is still taken).

// compileAfter resolves resolve.after to the number of steps that must be
// met before the quiet time counts.
func (c *compiler) compileAfter(s *Signature, r *Cond) {
	if r.After == "" {
		return
	}
	if !r.Quiet.Set() {
		c.errorf(r.Pos, "resolve: after needs quiet (how long without a signal once the step is met)")
	}
	i := slices.IndexFunc(s.match.steps, func(st step) bool { return st.name == r.After })
	if i < 0 {
		c.errorf(r.Pos, "resolve: after %q is no step of the match", r.After)
		return
	}
	s.match.resolve.after = i + 1
}

// quietCounts reports whether resolve's quiet time counts for in yet.
func (d *detector) quietCounts(in *instance) bool {
	r := d.sig.match.resolve
	return r == nil || in.Step >= r.after
}
