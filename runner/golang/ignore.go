package golang

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"

	"honnef.co/go/tools/analysis/lint"

	"github.com/fixloop/fixloop/runner"
)

// An ignore is a staticcheck //lint:ignore or //lint:file-ignore directive.
// Staticcheck's driver applies them to its own diagnostics; we do the same,
// to staticcheck alerts only.
type ignore struct {
	file   string
	line   int // 0 for file-ignore
	checks []string
}

// findIgnores collects the linter directives in files.
func findIgnores(fset *token.FileSet, files []*ast.File) []ignore {
	var withDirectives []*ast.File
	for _, f := range files {
		if hasLintDirective(f) {
			withDirectives = append(withDirectives, f)
		}
	}
	if len(withDirectives) == 0 {
		return nil
	}
	var out []ignore
	for _, d := range lint.ParseDirectives(withDirectives, fset) {
		if len(d.Arguments) < 2 { // the reason is required
			continue
		}
		pos := fset.PositionFor(d.Node.Pos(), false)
		ig := ignore{file: pos.Filename, checks: strings.Split(d.Arguments[0], ",")}
		switch d.Command {
		case "ignore":
			ig.line = pos.Line
		case "file-ignore":
		default:
			continue
		}
		out = append(out, ig)
	}
	return out
}

func hasLintDirective(f *ast.File) bool {
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//lint:") {
				return true
			}
		}
	}
	return false
}

// ignored reports whether a directive silences the staticcheck alert.
func ignored(igs []ignore, al *runner.Alert) bool {
	if al.Source != sourceStaticcheck {
		return false
	}
	for _, ig := range igs {
		if ig.file != al.File || (ig.line != 0 && ig.line != al.Line) {
			continue
		}
		for _, c := range ig.checks {
			if ok, _ := filepath.Match(strings.ToUpper(strings.TrimSpace(c)), al.Code); ok {
				return true
			}
		}
	}
	return false
}
