package golang

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"honnef.co/go/tools/analysis/lint"

	"github.com/fixloop/fixloop/runner/golang/suite"
)

// DefaultChecks returns the checks list that a nil AnalyzerOptions.Checks
// stands for: staticcheck's own default, "all" minus the checks staticcheck
// marks as non-default (ST1000, ST1003, ST1016, ST1020, ST1021, ST1022,
// ST1023 and SA9003 in v0.8.2).
func DefaultChecks() []string {
	checks := []string{"all"}
	for _, c := range suite.Staticcheck() {
		if c.Doc.NonDefault {
			checks = append(checks, "-"+c.Analyzer.Name)
		}
	}
	return checks
}

// ValidateChecks reports unknown check names or bad patterns in a checks
// list, in staticcheck's "checks" syntax, with a message a user can act on.
// All problems are reported, joined.
func ValidateChecks(checks []string) error {
	_, err := selectChecks(checks)
	return err
}

// selectChecks applies a checks list in staticcheck's syntax to the known
// checks and returns the enabled ones, sorted by name.
//
// The semantics are those of staticcheck's -checks flag and staticcheck.conf:
// entries apply in order, later ones win; "all" or "*" matches every check; a
// leading "-" disables; "SA*" matches a whole category (S* matches S1000 but
// not SA1000); "SA1*" matches by prefix; anything else names one check. Names
// are case-insensitive. "inherit" stands for the default list. nil means
// DefaultChecks.
func selectChecks(checks []string) ([]*lint.Analyzer, error) {
	if checks == nil {
		checks = DefaultChecks()
	}
	all := suite.Staticcheck()
	enabled := make(map[*lint.Analyzer]bool, len(all))
	var errs []error
	apply := func(entry string) {
		check := strings.TrimSpace(entry)
		on := true
		if len(check) > 1 && check[0] == '-' {
			on = false
			check = check[1:]
		}
		matched, err := matchChecks(all, strings.ToUpper(check))
		if err != nil {
			errs = append(errs, fmt.Errorf("checks entry %q: %w", entry, err))
			return
		}
		for _, a := range matched {
			enabled[a] = on
		}
	}
	for _, entry := range checks {
		if strings.EqualFold(strings.TrimSpace(entry), "inherit") {
			for _, d := range DefaultChecks() {
				apply(d)
			}
			continue
		}
		apply(entry)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []*lint.Analyzer
	for _, a := range all {
		if enabled[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

// matchChecks returns the checks that one upper-cased pattern (without its
// "-") selects, or an error that says what is wrong with it.
func matchChecks(all []*lint.Analyzer, pattern string) ([]*lint.Analyzer, error) {
	switch {
	case pattern == "" || pattern == "-":
		return nil, errors.New("empty check name")
	case pattern == "ALL" || pattern == "*":
		return all, nil
	case strings.Contains(strings.TrimSuffix(pattern, "*"), "*"):
		return nil, errors.New(`only a trailing "*" is supported, as in "SA*" or "SA1*"`)
	}
	var out []*lint.Analyzer
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		isCategory := strings.IndexFunc(prefix, unicode.IsNumber) == -1
		for _, a := range all {
			name := a.Analyzer.Name
			if isCategory {
				if i := strings.IndexFunc(name, unicode.IsNumber); i >= 0 && name[:i] == prefix {
					out = append(out, a)
				}
			} else if strings.HasPrefix(name, prefix) {
				out = append(out, a)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("pattern %q matches no check; categories are SA, S, ST and QF (see https://staticcheck.dev/docs/checks/)", strings.ToUpper(pattern))
		}
		return out, nil
	}
	for _, a := range all {
		if a.Analyzer.Name == pattern {
			return []*lint.Analyzer{a}, nil
		}
	}
	return nil, unknownCheckError(pattern)
}

// unknownCheckError explains why name is not a check that can be selected.
func unknownCheckError(name string) error {
	if strings.HasPrefix(name, "U1") {
		return fmt.Errorf("check %q (unused) works across packages and is not supported by in-process analysis; remove it", name)
	}
	for _, a := range suite.Vet() {
		if strings.EqualFold(a.Name, name) {
			return fmt.Errorf("%q is a go vet analyzer, which always runs; only staticcheck checks (SA, S, ST, QF) can be selected", a.Name)
		}
	}
	return fmt.Errorf("unknown check %q; see https://staticcheck.dev/docs/checks/ for the list", name)
}
