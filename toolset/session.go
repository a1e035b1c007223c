package toolset

import (
	"cmp"
	"maps"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner/langs"
)

// Minimize is the hunk search of cfg's minimize section, as
// refactor.Options takes it.
func Minimize(cfg config.Config) refactor.Minimize {
	m := cfg.Minimize
	share := m.Share
	if share <= 0 {
		share = -1 // the settings' "no bound"; refactor's 0 is its default
	}
	return refactor.Minimize{Off: !m.Enabled, MaxChecks: m.MaxChecks, Budget: m.Budget, Share: share}
}

// Stuck is the stuck rules of cfg's stuck section, as refactor.Options
// takes them: a count of 0 (the settings' "never") turns its rule off,
// which refactor spells with a negative count (its 0 means the default).
func Stuck(cfg config.Config) refactor.Stuck {
	off := func(n int) int {
		if n <= 0 {
			return -1
		}
		return n
	}
	return refactor.Stuck{Repeats: off(cfg.Stuck.Repeats), SameFeedback: off(cfg.Stuck.SameFeedback)}
}

// SessionTools is what a session of file records as its tools: versions
// (the tools' versions), and the design its linters were set to run in,
// "warm" or "cold": for a Python file pylint's, flake8's and pyright's
// under "python.tools", for a Java file javac's, checkstyle's and PMD's
// under "java.tools", for a C++ file clang-tidy's and g++'s under
// "cpp.tools", so that a paper-exact run shows it used the pinned command
// line tools.
func SessionTools(versions map[string]string, cfg config.Config, file string) map[string]string {
	out := maps.Clone(versions)
	key, design := "", ""
	switch langs.Detect(file, "") {
	case langs.Python:
		key, design = "python.tools", string(cmp.Or(cfg.Python.Tools, config.PythonWarm))
	case langs.Java:
		key, design = "java.tools", string(cmp.Or(cfg.Java.Tools, config.JavaWarm))
	case langs.Cpp:
		key, design = "cpp.tools", string(cmp.Or(cfg.Cpp.Tools, config.CppWarm))
	default:
		return out
	}
	if out == nil {
		out = map[string]string{}
	}
	out[key] = design
	return out
}
