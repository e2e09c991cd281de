package signature

import "cel.dev/cel-go/cel"

// anyKey makes a corroboration with any_key: true one of every instance,
// whatever its key: a cluster-wide fact such as SCM's finalization, which
// names no datanode. Its by is the constant "" (one kept signal, the
// latest), and giving one is an error.
func (c *compiler) anyKey(co Corroboration, st step) step {
	if !co.AnyKey {
		return st
	}
	st.anyKey = true
	if co.By.Set() {
		c.errorf(co.By.Pos, "corroborate %s: any_key and by exclude each other (an any_key corroboration confirms every incident)", co.Name)
		return st
	}
	prg := c.program(c.env(nil, true), Expr{Src: `""`, Pos: co.Pos}, cel.StringType, "corroborate "+co.Name+" by")
	for i := range st.alts {
		st.alts[i].by = prg
	}
	return st
}
