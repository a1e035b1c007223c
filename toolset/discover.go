package toolset

import (
	"context"
	"slices"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor/model/rules"
	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/runner/java"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/lintcmd"
	"github.com/fixloop/fixloop/runner/python"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// Discover finds every external tool fixloop can use under cfg (the
// command linters included) and reads the versions of those found.
func Discover(ctx context.Context, cfg config.Config) []tool.Status {
	var all []tool.Tool
	all = append(all, tool.Tool{Name: "go", Language: langs.Go, Commands: []string{"go"}, Package: "Go distribution (https://go.dev/dl)", VersionArgs: []string{"version"}})
	for _, t := range python.Tools() {
		if t.Name == python.Pyright && !slices.Contains(cfg.Python.Linters, python.Pyright) {
			t.Optional = "python.linters"
		}
		all = append(all, t)
	}
	// The rules provider's Python fixer (LintEval's rule-based baseline).
	all = append(all, tool.Tool{Name: "autopep8", Language: langs.Python, Commands: []string{"autopep8"},
		Package: "Debian package python3-autopep8 (the rules provider's Python fixer)", Install: "apt install python3-autopep8",
		Optional: "the rules provider's Python fixer"})
	all = append(all, cpp.Tools()...)
	if c := cfg.Cpp.ClangTidy; c != "" && c != "clang-tidy" {
		pinned := cpp.ClangTidyCommand(c)
		pinned.Name = c + " (cpp.clangTidy)"
		all = append(all, pinned)
		if d := cpp.ClangdCommand(c); d.Commands[0] != "clangd-22" {
			d.Name = d.Commands[0] + " (cpp.tools warm with cpp.clangTidy)"
			all = append(all, d)
		}
	}
	out := tool.Discover(ctx, all)
	for _, st := range java.Discover(ctx) {
		if st.Tool.Optional == "java.pmd" && cfg.Java.PMD != "" {
			st.Tool.Optional = "" // configured: needed
		}
		out = append(out, st)
	}
	// The rules provider's Java fixer: google-java-format's jar
	// ($FIXLOOP_GOOGLE_JAVA_FORMAT) or a google-java-format on PATH.
	out = append(out, rules.Tools(ctx)...)
	var generic []tool.Tool
	for _, spec := range cfg.Linters {
		if g, err := lintcmd.New(commandSpec(spec), nil); err == nil {
			generic = append(generic, g.Tool())
		}
	}
	return append(out, tool.Discover(ctx, generic)...)
}

// Diagnose returns notes about the environment worth telling a user who
// lists the tools: what the sandbox enforces here, and interpreter
// mismatches.
func Diagnose(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	notes := []string{"sandbox: " + sandbox.Probe().String()}
	notes = append(notes, python.Diagnose(ctx)...)
	return notes
}
