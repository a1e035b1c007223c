package config

import "strings"

// Allowed values, in the order they are shown to users.
func pythonLinterNames() []string { return []string{PythonPylint, PythonFlake8, PythonPyright} }
func compareModes() []string      { return []string{CompareWhitespace, CompareExact, CompareLines} }
func judgeModes() []string        { return []string{JudgeAuto, JudgeOn, JudgeOff} }
func linterInputs() []string      { return []string{"stdin", "tempfile", "file"} }
func linterOutputs() []string     { return []string{OutputStdout, OutputStderr, OutputBoth} }
func columnUnits() []string       { return []string{"bytes", "runes", "utf16"} }
func categoryNames() []string {
	return []string{"Error-prone", "Performance", "Refactor", "Style", "Other"}
}
func severityNames() []string {
	return []string{SeverityError, SeverityWarning, SeverityInformation, SeverityHint}
}
func placeholderNames() []string { return []string{"file", "dir", "root", "name"} }

// keyList formats keys for messages: "a, b, c".
func keyList(keys []string) string { return strings.Join(keys, ", ") }

// unknownKey explains an unknown key, suggesting a close known one.
func unknownKey(key string, known []string) string {
	msg := "unknown key " + quote(key)
	if s := suggest(key, known); s != "" {
		msg += "; did you mean " + quote(s) + "?"
	}
	return msg + "; allowed keys: " + keyList(known)
}

// suggest returns the known key closest to key: equal ignoring case, "_" and
// "-", or within two edits. It returns "" when none is close.
func suggest(key string, known []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))
	}
	best, bestDist := "", 3
	for _, k := range known {
		if norm(k) == norm(key) {
			return k
		}
		if d := editDistance(norm(k), norm(key)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
