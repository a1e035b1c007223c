package rules

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/fixloop/fixloop/refactor/model"
)

// goAnswer is Complete's answer for Go: the fixes of pickGoFixes, or a
// prefix of them that was not answered before, applied and tidied.
func goAnswer(req model.Request) (string, error) {
	fixes := pickGoFixes(req.File, req.Text, req.Alerts)
	given := make(map[string]bool)
	for _, m := range req.Messages {
		if m.Role == model.RoleAssistant {
			given[m.Content] = true
		}
	}
	for n := len(fixes); n > 0; n /= 2 {
		text, err := ApplyEdits(req.Text, flatten(fixes[:n]))
		if err != nil {
			return "", fmt.Errorf("rules: fixing %s: %w", req.File, err)
		}
		if c := CodeBlock(req.Language, tidyGo(req.Text, text)); !given[c] {
			return c, nil
		}
	}
	return CodeBlock(req.Language, req.Text), nil
}

// tidyGo finishes fixed, the result of applying fixes to base, as the
// tools expect their fixes to be finished: the imports that base used and
// fixed no longer uses are removed (staticcheck's S1025 turns
// fmt.Sprintf("%s", s) into s, which may leave fmt unused), and when base
// was gofmt-formatted, fixed is formatted (the fixes leave spacing to
// gofmt: QF1004 drops the -1 of strings.Replace(s, a, b, -1) and keeps the
// comma before it). A file that was not formatted keeps its layout, so
// that only the fixes' lines change. A fixed text that does not parse is
// returned as it is.
func tidyGo(base, fixed string) string {
	formatted := false
	if out, err := format.Source([]byte(base)); err == nil && string(out) == base {
		formatted = true
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fixed.go", fixed, parser.ParseComments)
	if err != nil {
		return fixed
	}
	used := usedImports(base)
	var unused []*ast.ImportSpec
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err == nil && used[path] && !astutil.UsesImport(f, path) {
			unused = append(unused, spec)
		}
	}
	switch {
	case formatted:
		for _, spec := range unused {
			path, _ := strconv.Unquote(spec.Path.Value)
			astutil.DeleteNamedImport(fset, f, importName(spec), path)
		}
		var b bytes.Buffer
		if err := format.Node(&b, fset, f); err != nil {
			return fixed
		}
		return b.String()
	case len(unused) > 0:
		// Remove the unused imports' lines, leaving the rest as it is.
		tf := fset.File(f.FileStart)
		var out strings.Builder
		last := 0
		for _, spec := range unused {
			start := tf.LineStart(tf.Line(spec.Pos()))
			end := len(fixed)
			if l := tf.Line(spec.End()); l < tf.LineCount() {
				end = tf.Offset(tf.LineStart(l + 1))
			}
			if s := tf.Offset(start); s >= last {
				out.WriteString(fixed[last:s])
				last = end
			}
		}
		out.WriteString(fixed[last:])
		return out.String()
	}
	return fixed
}

// usedImports returns the import paths that the Go file text uses
// (astutil.UsesImport's guess of the package name).
func usedImports(text string) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "base.go", text, 0)
	if err != nil {
		return nil
	}
	used := make(map[string]bool)
	for _, spec := range f.Imports {
		if path, err := strconv.Unquote(spec.Path.Value); err == nil && astutil.UsesImport(f, path) {
			used[path] = true
		}
	}
	return used
}

func importName(spec *ast.ImportSpec) string {
	if spec.Name == nil {
		return ""
	}
	return spec.Name.Name
}
