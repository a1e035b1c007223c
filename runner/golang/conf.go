package golang

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/tools/go/analysis"
	"honnef.co/go/tools/analysis/lint"
	"honnef.co/go/tools/config"

	"github.com/fixloop/fixloop/runner/golang/suite"
)

// confState records the staticcheck.conf files that apply to a package
// directory, so that a change to any of them is noticed.
type confState struct {
	// stamps are of every staticcheck.conf that may apply, existing or
	// not: in the directory and each of its parents, as staticcheck looks.
	stamps []fileStamp
	// problem says why a file could not be used ("" if none).
	problem string
}

// changed reports whether any of the files changed, appeared or went.
func (c confState) changed() bool {
	for _, st := range c.stamps {
		if !stamp(st.name).sameAs(st) {
			return true
		}
	}
	return false
}

// checksFor returns the analyzers that run on the package in dir: the go
// vet suite and the staticcheck checks selected as staticcheck selects
// them (cmd/staticcheck with its -checks flag set to AnalyzerOptions.Checks),
// and the state to notice a change of the configuration by.
//
// staticcheck starts from its default list (DefaultChecks), applies the
// "checks" of each staticcheck.conf from the root of the file system down
// to dir, where "inherit" stands for the list so far, and then its
// -checks flag, here AnalyzerOptions.Checks (the staticcheck.checks
// setting of .fixloop.yaml and the editor), in which "inherit" stands for
// what the files selected. Names that staticcheck does not know (a newer
// check, U1000) are ignored in the files, as staticcheck ignores them.
func (a *Analyzer) checksFor(dir string, _ confState) ([]*analysis.Analyzer, confState) {
	var conf confState
	var files []string // nearest first
	for d := dir; ; {
		name := filepath.Join(d, config.ConfigName)
		st := stamp(name)
		conf.stamps = append(conf.stamps, st)
		if st.exists {
			if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
				files = append(files, name)
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	list := DefaultChecks()
	var problems []string
	for i := len(files) - 1; i >= 0; i-- {
		var cfg config.Config
		if _, err := toml.DecodeFile(files[i], &cfg); err != nil {
			problems = append(problems, fmt.Sprintf("%s could not be read, so its checks setting was not applied: %v", files[i], err))
			continue
		}
		if cfg.Checks != nil {
			list = mergeChecks(list, cfg.Checks)
		}
	}
	if a.userChecks != nil {
		list = mergeChecks(list, a.userChecks)
	}
	conf.problem = strings.Join(problems, "\n")
	key := strings.Join(list, ",")
	a.mu.Lock()
	checks, ok := a.checkSets[key]
	a.mu.Unlock()
	if ok {
		return checks, conf
	}
	checks = suite.Vet()
	for _, c := range selectChecksLenient(list) {
		checks = append(checks, c.Analyzer)
	}
	a.mu.Lock()
	a.checkSets[key] = checks
	a.mu.Unlock()
	return checks, conf
}

// mergeChecks applies a checks list on top of base as staticcheck merges
// configurations: the list replaces base, "inherit" in it standing for
// base.
func mergeChecks(base, list []string) []string {
	out := make([]string, 0, len(base)+len(list))
	for _, c := range list {
		if strings.EqualFold(strings.TrimSpace(c), "inherit") {
			out = append(out, base...)
		} else {
			out = append(out, c)
		}
	}
	return out
}

// selectChecksLenient is selectChecks ignoring entries that name no
// known check.
func selectChecksLenient(checks []string) []*lint.Analyzer {
	ok := make([]string, 0, len(checks)) // empty, not nil: nil means the defaults
	all := suite.Staticcheck()
	for _, c := range checks {
		name := strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(c), "-"))
		if name == "INHERIT" {
			ok = append(ok, c)
			continue
		}
		if _, err := matchChecks(all, name); err == nil {
			ok = append(ok, c)
		}
	}
	out, _ := selectChecks(ok)
	return out
}
