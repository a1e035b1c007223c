package golang

import (
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	"honnef.co/go/tools/analysis/lint"
	"honnef.co/go/tools/simple"
	"honnef.co/go/tools/staticcheck"
	"honnef.co/go/tools/stylecheck"
	"honnef.co/go/tools/quickfix"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
)

func TestScratch(t *testing.T) {
	dir := "../../testdata/goexample"
	for _, tests := range []bool{true, false, true} {
	for _, mode := range []packages.LoadMode{packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps, packages.LoadTypes|packages.NeedDeps, packages.LoadAllSyntax} {
		t0 := time.Now()
		cfg := &packages.Config{Mode: mode, Dir: dir, Tests: tests}
		pkgs, err := packages.Load(cfg, ".")
		n := 0
		packages.Visit(pkgs, nil, func(p *packages.Package) { n++ })
		t.Log(tests, mode, time.Since(t0), err, n)
		if mode == packages.LoadAllSyntax {
			var as []*analysis.Analyzer
			as = append(as, printf.Analyzer, lostcancel.Analyzer)
			for _, l := range [][]*lint.Analyzer{simple.Analyzers, staticcheck.Analyzers, stylecheck.Analyzers, quickfix.Analyzers} {
				for _, a := range l { as = append(as, a.Analyzer) }
			}
			t0 = time.Now()
			g, err := checker.Analyze(as, pkgs[:1], nil)
			t.Log("analyze", time.Since(t0), err, len(g.Roots))
		}
	}
	}
}
