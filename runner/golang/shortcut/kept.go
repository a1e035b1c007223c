package shortcut

import (
	"bytes"
	"cmp"
	"go/ast"
	"go/token"
	"slices"

	"github.com/fixloop/fixloop/runner"
)

// An edit changes a file in one place, most often; the declarations above
// that place are what they were, at the same positions. keptDecls are
// those of a changed file whose findings a pass takes from the last check,
// as it takes those of files that did not change (see reusable): the
// declarations that lie whole in the text that the old and the new
// version share from their start, mention no package-level name added or
// removed, and whose findings refer to nothing after that text. Import
// declarations are never kept (checks compare them with one another).
//
// The file-local checks then run on the file without the kept
// declarations (each finding is about a node, see fileLocalChecks), and a
// partial IR does not build the functions they declare (see irPlan).
type keptDecls struct {
	prefix     int // bytes the old and new texts share from their start
	prefixLine int // the last line wholly in them
	decls      map[ast.Decl]bool
	spans      [][2]int // the kept declarations' byte ranges, doc comments included
}

// covers reports whether byte offset off is in a kept declaration.
func (k *keptDecls) covers(off int) bool {
	if k == nil {
		return false
	}
	// The spans are in order and do not overlap: the last one starting at
	// or before off is the only one that may hold it.
	i, found := slices.BinarySearchFunc(k.spans, off, func(s [2]int, off int) int { return cmp.Compare(s[0], off) })
	if !found {
		i--
	}
	return i >= 0 && off < k.spans[i][1]
}

// kept holds the keptDecls of changed files, by file name.
type kept map[string]*keptDecls

// covers reports whether offset off of file is in a kept declaration.
func (k kept) covers(file string, off int) bool { return k[file].covers(off) }

// keepDecls returns the kept declarations of the changed files (those
// not in reuse, which reusable returned), given the notes of the last
// check and the names added or removed.
func keepDecls(last *Notes, files []File, reuse, names map[string]bool) kept {
	out := make(kept)
	for _, f := range files {
		if reuse[f.Name] || f.Same || f.AST == nil || f.Tok == nil || f.OldSrc == nil {
			continue
		}
		prefix := commonPrefix(f.OldSrc, f.Src)
		if prefix == 0 {
			continue
		}
		var findings []runner.Alert
		findings = append(findings, last.local[f.Name]...)
		if last.ir != nil {
			findings = append(findings, last.ir.local[f.Name]...)
		}
		k := &keptDecls{prefix: prefix, prefixLine: bytes.Count(f.Src[:prefix], []byte("\n")), decls: make(map[ast.Decl]bool)}
		for _, d := range f.AST.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				continue
			}
			start, end := declStart(d), d.End()
			so, eo := f.Tok.Offset(start), f.Tok.Offset(end)
			if eo >= prefix {
				break
			}
			if mentions(d, names) || !k.selfContained(findings, f.Name, so, eo) {
				continue
			}
			k.decls[d] = true
			k.spans = append(k.spans, [2]int{so, eo})
		}
		if len(k.decls) > 0 {
			out[f.Name] = k
		}
	}
	return out
}

// selfContained reports whether the findings in file name between byte
// offsets so and eo refer to nothing outside the shared text: no related
// information or fix after it or in another file, no position in a
// message.
func (k *keptDecls) selfContained(findings []runner.Alert, name string, so, eo int) bool {
	for _, al := range findings {
		if al.Start < so || al.Start >= eo {
			continue
		}
		if al.End > k.prefix || foreignRef.MatchString(al.Message) {
			return false
		}
		for _, r := range al.Related {
			if r.File != name || r.Line > k.prefixLine {
				return false
			}
		}
		for _, fx := range al.Fixes {
			for _, e := range fx.Edits {
				if e.File != name || e.End > k.prefix {
					return false
				}
			}
		}
	}
	return true
}

// declStart returns where d starts, with its doc comment.
func declStart(d ast.Decl) token.Pos {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Doc != nil {
			return d.Doc.Pos()
		}
	case *ast.GenDecl:
		if d.Doc != nil {
			return d.Doc.Pos()
		}
	}
	return d.Pos()
}

// mentions reports whether d mentions one of names.
func mentions(d ast.Decl, names map[string]bool) bool {
	if len(names) == 0 {
		return false
	}
	found := false
	ast.Inspect(d, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// withoutDecls returns a shallow copy of f without the declarations in
// drop.
func withoutDecls(f *ast.File, drop map[ast.Decl]bool) *ast.File {
	c := *f
	c.Decls = make([]ast.Decl, 0, len(f.Decls))
	for _, d := range f.Decls {
		if !drop[d] {
			c.Decls = append(c.Decls, d)
		}
	}
	return &c
}

// mergeKept replaces the findings of alerts (of the changed file name) in
// kept declarations with the last check's, old.
func mergeKept(alerts, old []runner.Alert, k *keptDecls) []runner.Alert {
	if k == nil {
		return alerts
	}
	var out []runner.Alert
	for _, al := range alerts {
		if !k.covers(al.Start) {
			out = append(out, al)
		}
	}
	for _, al := range old {
		if k.covers(al.Start) {
			out = append(out, al)
		}
	}
	return out
}
