package rules

// Deterministic reports that the answer depends only on the file state, so
// an unchanged answer means there is nothing more to apply.
func (*Provider) Deterministic() bool { return true }
