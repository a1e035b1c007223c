package python

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// pylintCategoryLetters are pylint's message categories, by the names
// python.pylintCategories uses, with the letters pylint's --enable takes.
var pylintCategoryLetters = map[string]string{
	"convention": "C",
	"refactor":   "R",
	"warning":    "W",
	"error":      "E",
	"info":       "I",
}

// PylintPerformance is the python.pylintCategories name that is not one of
// pylint's categories: the messages fixloop's category table puts in
// Performance (category.go), which pylint files under C, R and W.
const PylintPerformance = "performance"

// PylintCategories returns the names python.pylintCategories accepts.
func PylintCategories() []string {
	names := []string{PylintPerformance}
	for n := range pylintCategoryLetters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LintEvalPylintCategories are the rule families the LintEval paper runs
// pylint with (its Table 13).
func LintEvalPylintCategories() []string {
	return []string{"error", "performance", "refactor", "convention"}
}

// pylintSelection returns the arguments that restrict pylint to
// categories: nil for nil (pylint's own defaults); otherwise every
// message off, then the categories' letters and, for "performance", the
// Performance messages on. Fatal messages (F: pylint could not analyse the
// file) stay on whatever is chosen. Command-line options override the
// project's pylintrc, so the choice holds in every repository.
func pylintSelection(categories []string) ([]string, error) {
	if categories == nil {
		return nil, nil
	}
	if len(categories) == 0 {
		return nil, fmt.Errorf("python.pylintCategories: [] would hide every pylint message; leave the key out for pylint's defaults")
	}
	enable := []string{"F"}
	var ids []string
	for _, c := range categories {
		switch letter, ok := pylintCategoryLetters[c]; {
		case ok:
			if !slices.Contains(enable, letter) {
				enable = append(enable, letter)
			}
		case c == PylintPerformance:
			for id := range pylintPerformance {
				ids = append(ids, id)
			}
		default:
			return nil, fmt.Errorf("unknown pylint category %q: choose among %s", c, strings.Join(PylintCategories(), ", "))
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !slices.Contains(enable, id[:1]) { // already on with its category
			enable = append(enable, id)
		}
	}
	return []string{"--disable=all", "--enable=" + strings.Join(enable, ",")}, nil
}
