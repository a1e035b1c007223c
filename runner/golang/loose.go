package golang

import (
	"bytes"
	"context"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang/suite"
	"github.com/fixloop/fixloop/runner/proc"
)

// loosePackage is the name the go command gives a package of files named
// on its command line.
const loosePackage = "command-line-arguments"

// analyzeLoose checks a Go file outside any module as `go vet file.go`
// checks it: the file alone is the package (command-line-arguments), with
// the go vet suite; its directory is neither walked nor copied, its other
// files are not part of it. cgo is off: no C preprocessor runs on a file
// fixloop was not given a project for (an `import "C"` file is reported as
// go list reports it then). Only the standard library can be imported.
func (a *Analyzer) analyzeLoose(ctx context.Context, file string, overlay map[string][]byte) (*Result, error) {
	dir := filepath.Dir(file)
	runDir := dir
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		runDir = os.TempDir() // an unsaved file of a directory that is gone
	}
	var ov map[string][]byte
	if src, ok := overlay[file]; ok {
		ov = map[string][]byte{file: src}
	}
	lctx, release, err := proc.Hold(ctx) // go list takes a slot of the pool
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Context: lctx,
		Mode:    packages.LoadAllSyntax,
		Dir:     runDir,
		// Module mode outside any module, as `go vet main.go` runs there;
		// no workspace file, no flags of the environment's (-mod=vendor
		// and the like are about a module), no cgo.
		Env:     append(os.Environ(), "GO111MODULE=on", "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0"),
		Overlay: ov,
	}
	pkgs, err := packages.Load(cfg, file)
	release()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, fmt.Errorf("analyzing %s: loading it: %w", file, err)
	}
	res := &Result{Package: loosePackage, Dir: dir, Files: []string{file}}
	var root *packages.Package
	for _, p := range pkgs {
		if slices.Contains(p.CompiledGoFiles, file) || slices.Contains(p.GoFiles, file) || p.PkgPath == loosePackage {
			root = p
			break
		}
	}
	if root == nil {
		if len(pkgs) > 0 {
			for _, e := range pkgs[0].Errors {
				res.Alerts = append(res.Alerts, looseAlertAt(nil, file, sourceCompiler, "", e.Msg, token.Position{}, token.Position{}))
			}
		}
		if len(res.Alerts) == 0 {
			res.Alerts = append(res.Alerts, looseAlertAt(nil, file, sourceCompiler, "", "go list found no package for this file", token.Position{}, token.Position{}))
		}
		return res, nil
	}
	src := fileSource(file, overlay)
	if len(root.Errors) > 0 {
		// As go vet: a package that does not build is reported, not
		// analysed.
		for _, e := range root.Errors {
			pos := positionOf(root.Fset, e.Pos, file)
			res.Alerts = append(res.Alerts, looseAlertAt(src, file, sourceCompiler, "", e.Msg, pos, pos))
		}
		return res, nil
	}
	graph, err := checker.Analyze(suite.Vet(), []*packages.Package{root}, nil)
	if err != nil && graph == nil {
		return nil, fmt.Errorf("analyzing %s: %w", file, err)
	}
	for _, act := range graph.Roots {
		for _, d := range act.Diagnostics {
			start, end := root.Fset.Position(d.Pos), root.Fset.Position(d.Pos)
			if d.End.IsValid() {
				end = root.Fset.Position(d.End)
			}
			if start.Filename != file {
				continue
			}
			al := looseAlertAt(src, file, sourceVet, act.Analyzer.Name, d.Message, start, end)
			for _, fix := range d.SuggestedFixes {
				if f, ok := looseFix(root.Fset, fix); ok {
					al.Fixes = append(al.Fixes, f)
				}
			}
			res.Alerts = append(res.Alerts, al)
		}
	}
	res.Alerts = dedupeSorted(res.Alerts)
	return res, nil
}

// fileSource returns the text of file: its overlay, else what is on disk.
func fileSource(file string, overlay map[string][]byte) []byte {
	if src, ok := overlay[file]; ok {
		return src
	}
	src, _ := os.ReadFile(file)
	return src
}

// positionOf reads a go/packages error position ("file:line:col"), whose
// file is fallback when it names none.
func positionOf(fset *token.FileSet, pos, fallback string) token.Position {
	f, line, col := splitPos(pos)
	if f == "" || f == "-" {
		f = fallback
	}
	return token.Position{Filename: f, Line: line, Column: col}
}

// looseAlertAt is an alert of file from start to end; a position without
// an offset gets one from src, a position without a line is the file's
// start.
func looseAlertAt(src []byte, file, source, code, msg string, start, end token.Position) runner.Alert {
	fill := func(p token.Position) token.Position {
		if p.Line < 1 {
			return token.Position{Filename: file, Line: 1, Column: 1}
		}
		p.Column = max(p.Column, 1)
		if p.Offset <= 0 && src != nil {
			p.Offset = offsetOf(src, p.Line, p.Column)
		}
		return p
	}
	start, end = fill(start), fill(end)
	if end.Offset < start.Offset {
		end = start
	}
	return runner.Alert{
		File: file, Start: start.Offset, End: end.Offset,
		Line: start.Line, Column: start.Column, EndLine: end.Line, EndColumn: end.Column,
		Severity: severityFor(source, code), Source: source, Code: code, URL: ruleURL(source, code),
		Message: msg, Category: runner.CategoryFor(source, code),
	}
}

// offsetOf returns the byte offset of a 1-based line and byte column in
// src, clamped to src.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return min(off+col-1, len(src))
}

// looseFix converts a suggested fix whose edits are all in one known file.
func looseFix(fset *token.FileSet, fix analysis.SuggestedFix) (runner.Fix, bool) {
	out := runner.Fix{Title: fix.Message}
	for _, te := range fix.TextEdits {
		tf := fset.File(te.Pos)
		end := te.End
		if !end.IsValid() {
			end = te.Pos
		}
		if tf == nil || end < te.Pos || fset.File(end) != tf {
			return runner.Fix{}, false
		}
		out.Edits = append(out.Edits, runner.Edit{File: tf.Name(), Start: tf.Offset(te.Pos), End: tf.Offset(end), NewText: string(te.NewText)})
	}
	return out, len(out.Edits) > 0
}

// dedupeSorted sorts alerts and removes duplicates.
func dedupeSorted(alerts []runner.Alert) []runner.Alert {
	s := &alertSink{alerts: alerts}
	return s.finish()
}
