package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// applier validates a value tree and applies the valid parts to a Config.
type applier struct {
	source   string
	validate CheckValidator
	problems Problems
	// workspace is set for the workspace's .fixloop.yaml, which a cloned
	// repository controls: it may not choose where the API key or the
	// session records go.
	workspace bool
}

// apply validates root and applies it over base.
func (l Loader) apply(base Config, root *value, source string) (Config, Problems) {
	return l.applyAs(base, root, source, false)
}

// applyAs is apply, for the workspace file when workspace is set.
func (l Loader) applyAs(base Config, root *value, source string, workspace bool) (Config, Problems) {
	a := &applier{source: source, validate: l.Validate, workspace: workspace}
	cfg := base.clone() // do not share slices or maps with the caller
	a.root(&cfg, root)
	return cfg, a.problems
}

// problemf records a problem at line:col (0 when unknown) for fieldPath.
func (a *applier) problemf(line, col int, fieldPath, format string, args ...any) {
	a.problems = append(a.problems, Problem{
		Source:  a.source,
		Line:    line,
		Column:  col,
		Field:   fieldPath,
		Message: fmt.Sprintf(format, args...),
	})
}

// fields checks that v is a map with only known, unique keys and calls set for
// each key whose value is not null. path is v's dotted path ("" for the root).
func (a *applier) fields(v *value, path string, known []string, set func(key, path string, val *value)) {
	switch v.kind {
	case kindNull:
		return
	case kindMap:
	default:
		what := "must"
		if path == "" {
			what = "the settings must"
		}
		a.problemf(v.line, v.col, path, "%s be a map with keys %s, not %s", what, keyList(known), v.kind)
		return
	}
	seen := make(map[string]field, len(v.fields))
	for _, f := range v.fields {
		p := join(path, f.key)
		if !slices.Contains(known, f.key) {
			a.problemf(f.line, f.col, p, "%s", unknownKey(f.key, known))
			continue
		}
		if first, dup := seen[f.key]; dup {
			where := ""
			if first.line > 0 {
				where = fmt.Sprintf(" (first at line %d)", first.line)
			}
			a.problemf(f.line, f.col, p, "key appears more than once%s; keep only one", where)
			continue
		}
		seen[f.key] = f
		if f.val.kind != kindNull {
			set(f.key, p, f.val)
		}
	}
}

// durationSpec says what a duration setting accepts.
type durationSpec struct {
	unit        time.Duration // the unit of plain numbers
	unitName    string        // "milliseconds"
	example     string        // `"150ms"`
	lo, hi      time.Duration // allowed range
	loInclusive bool          // whether lo itself is allowed
}

// Duration settings.
func debounceSpec() durationSpec {
	return durationSpec{time.Millisecond, "milliseconds", `"150ms"`, 0, MaxDebounce, true}
}

func timeoutSpec() durationSpec {
	return durationSpec{time.Second, "seconds", `"60s"`, 0, MaxTestTimeout, false}
}

func wallTimeoutSpec() durationSpec {
	return durationSpec{time.Second, "seconds", `"3m"`, 0, MaxWallTimeout, false}
}

// duration validates a duration given as a Go duration string or as a
// number of spec's units.
func (a *applier) duration(v *value, path string, spec durationSpec) (time.Duration, bool) {
	var d time.Duration
	switch v.kind {
	case kindString:
		var err error
		d, err = time.ParseDuration(strings.TrimSpace(v.text))
		if err != nil {
			a.problemf(v.line, v.col, path, "%s is not a duration; use a duration such as %s (units ms, s, m, h) or a number of %s", v.show(), spec.example, spec.unitName)
			return 0, false
		}
	case kindNumber:
		// Check the range in units first so that huge numbers cannot overflow.
		units := float64(spec.unit)
		if math.IsNaN(v.num) || v.num < float64(spec.lo)/units-1 || v.num > float64(spec.hi)/units+1 {
			a.problemf(v.line, v.col, path, "%s %s is out of range; %s", v.text, spec.unitName, spec.rangeText())
			return 0, false
		}
		d = time.Duration(math.Round(v.num * units))
	default:
		a.problemf(v.line, v.col, path, "must be a duration such as %s or a number of %s, not %s", spec.example, spec.unitName, v.kind)
		return 0, false
	}
	if d < spec.lo || (!spec.loInclusive && d == spec.lo) || d > spec.hi {
		a.problemf(v.line, v.col, path, "%s is out of range; %s", showDuration(d), spec.rangeText())
		return 0, false
	}
	return d, true
}

// rangeText says which durations are allowed.
func (spec durationSpec) rangeText() string {
	if spec.loInclusive {
		return fmt.Sprintf("allowed: %s to %s", showDuration(spec.lo), showDuration(spec.hi))
	}
	return fmt.Sprintf("allowed: more than %s, up to %s", showDuration(spec.lo), showDuration(spec.hi))
}

// showDuration formats d without trailing zero units: "30m", not "30m0s".
func showDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// size validates maxFileSize and maxDocumentSize: a positive whole number
// of bytes.
func (a *applier) size(v *value, path string) (int, bool) {
	if v.kind != kindNumber || !v.isInt {
		a.problemf(v.line, v.col, path, "%s is not a whole number of bytes; use a number such as %d (2 MiB)", v.show(), DefaultMaxFileSize)
		return 0, false
	}
	if v.intNum <= 0 || v.intNum > math.MaxInt {
		a.problemf(v.line, v.col, path, "%s is out of range; use a positive number of bytes such as %d (2 MiB)", v.text, DefaultMaxFileSize)
		return 0, false
	}
	return int(v.intNum), true
}

// checks validates staticcheck.checks: a list of check names, or one string
// of comma-separated names as in staticcheck's -checks flag. It then runs the
// caller's validator, if any.
func (a *applier) checks(v *value, path string) ([]string, bool) {
	var checks []string
	switch v.kind {
	case kindString:
		for c := range strings.SplitSeq(v.text, ",") {
			if c = strings.TrimSpace(c); c != "" {
				checks = append(checks, c)
			}
		}
		if len(checks) == 0 {
			a.problemf(v.line, v.col, path, "%s names no checks; use a list of names such as [\"all\", \"-ST1000\"], or leave the key out for staticcheck's defaults", v.show())
			return nil, false
		}
	case kindList:
		ok := true
		checks = make([]string, 0, len(v.items))
		for i, item := range v.items {
			name := strings.TrimSpace(item.text)
			if item.kind != kindString || name == "" || strings.ContainsAny(name, " \t\n,") {
				a.problemf(item.line, item.col, fmt.Sprintf("%s[%d]", path, i), "%s is not a check name; use names such as \"SA*\", \"all\" or \"-ST1000\"", item.show())
				ok = false
				continue
			}
			checks = append(checks, name)
		}
		if !ok {
			return nil, false
		}
	default:
		a.problemf(v.line, v.col, path, "must be a list of check names such as [\"all\", \"-ST1000\"], not %s", v.kind)
		return nil, false
	}
	if a.validate != nil {
		if err := a.validate(checks); err != nil {
			a.problemf(v.line, v.col, path, "%v", err)
			return nil, false
		}
	}
	return checks, true
}

// join appends key to a dotted path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// quote quotes s for messages.
func quote(s string) string { return strconv.Quote(s) }
