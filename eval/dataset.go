// Package eval reads the datasets fixloop eval runs: a directory with one
// folder per problem, or a JSONL manifest. Its queue package holds the
// run's jobs.
package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner/langs"
)

// A Problem is one program of a dataset and how to run it.
type Problem struct {
	// ID names the problem within its dataset: the folder name, or the
	// manifest's id.
	ID string `json:"id"`
	// File is the program's absolute path. Its tests are found as fixloop
	// check finds them: judge cases in tests/ beside it (input_N.txt and
	// output_N.txt, or N.in and N.out), or the test files its language's
	// runner finds (go test, pytest, JUnit).
	File string `json:"file"`
	// Language is the file's language (go, python, cpp, java).
	Language string `json:"language"`
	// Goal is repair or refactor; "" chooses by the original's check:
	// refactor when it builds and passes its tests, else repair.
	Goal refactor.Goal `json:"goal,omitempty"`
}

// Load reads a dataset: a directory with one folder per problem, or a
// JSONL manifest (a file whose lines are {"id", "file", "language",
// "goal", "tests"} objects, file and tests relative to the manifest).
func Load(path string) ([]Problem, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	var problems []Problem
	if info.IsDir() {
		problems, err = loadDir(path)
	} else {
		problems, err = loadManifest(path)
	}
	if err != nil {
		return nil, err
	}
	if len(problems) == 0 {
		return nil, fmt.Errorf("the dataset %s has no problems", path)
	}
	seen := make(map[string]bool)
	for _, p := range problems {
		if seen[p.ID] {
			return nil, fmt.Errorf("the dataset %s has two problems named %q", path, p.ID)
		}
		seen[p.ID] = true
	}
	return problems, nil
}

// loadDir reads one problem per folder of dir, in name order.
func loadDir(dir string) ([]Problem, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	var out []Problem
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		// A folder, or a link to one.
		if info, err := os.Stat(filepath.Join(dir, e.Name())); err != nil || !info.IsDir() {
			continue
		}
		file, err := programOf(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("dataset problem %s: %w", e.Name(), err)
		}
		abs, err := realPath(file)
		if err != nil {
			return nil, err
		}
		out = append(out, Problem{ID: e.Name(), File: abs, Language: langs.Detect(abs, "")})
	}
	return out, nil
}

// programOf finds a problem folder's program: its one source file that is
// not a test, or, among several, the one named main or solution.
func programOf(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		if e.IsDir() || isTestFile(e.Name()) || isHeader(e.Name()) || langs.Detect(e.Name(), "") == "" {
			continue
		}
		found = append(found, filepath.Join(dir, e.Name()))
	}
	switch len(found) {
	case 0:
		return "", errors.New("no Go, Python, C++ or Java source file")
	case 1:
		return found[0], nil
	}
	for _, f := range found {
		stem := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if strings.EqualFold(stem, "main") || strings.EqualFold(stem, "solution") {
			return f, nil
		}
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = filepath.Base(f)
	}
	return "", fmt.Errorf("several source files (%s): name the program main or solution, or use a JSONL manifest", strings.Join(names, ", "))
}

// isHeader reports whether name is a header or stub, not a program.
func isHeader(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".h", ".hh", ".hpp", ".hxx", ".pyi":
		return true
	}
	return false
}

// isTestFile reports whether name is a test by its language's convention.
func isTestFile(name string) bool {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	switch filepath.Ext(name) {
	case ".go":
		return strings.HasSuffix(base, "_test")
	case ".py":
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test") || base == "conftest"
	case ".java":
		return strings.HasSuffix(base, "Test") || strings.HasSuffix(base, "Tests")
	}
	return false
}

// manifestLine is one line of a JSONL manifest.
type manifestLine struct {
	ID       string `json:"id"`
	File     string `json:"file"`
	Language string `json:"language"`
	Goal     string `json:"goal"`
	// Tests, when given, is the judge case directory; it must be the
	// tests folder beside the file, where the judge looks.
	Tests string `json:"tests"`
}

// loadManifest reads a JSONL manifest.
func loadManifest(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	defer f.Close()
	base := filepath.Dir(path)
	var out []Problem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := manifestProblem(base, line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}

// manifestProblem checks and resolves one manifest line.
func manifestProblem(base, line string) (Problem, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	var m manifestLine
	if err := dec.Decode(&m); err != nil {
		return Problem{}, fmt.Errorf("not a problem object: %w", err)
	}
	if m.ID == "" || m.File == "" {
		return Problem{}, errors.New(`a problem needs an "id" and a "file"`)
	}
	file := m.File
	if !filepath.IsAbs(file) {
		file = filepath.Join(base, file)
	}
	if _, err := os.Stat(file); err != nil {
		return Problem{}, fmt.Errorf("problem %s: %w", m.ID, err)
	}
	lang := langs.Detect(file, "")
	if m.Language != "" {
		if lang != "" && lang != m.Language {
			return Problem{}, fmt.Errorf("problem %s: language %q, but %s is %s", m.ID, m.Language, filepath.Base(file), lang)
		}
		if !slices.Contains([]string{langs.Go, langs.Python, langs.Cpp, langs.Java}, m.Language) {
			return Problem{}, fmt.Errorf("problem %s: unknown language %q (go, python, cpp or java)", m.ID, m.Language)
		}
		lang = m.Language
	}
	if lang == "" {
		return Problem{}, fmt.Errorf("problem %s: no language for %s: give one", m.ID, filepath.Base(file))
	}
	var goal refactor.Goal
	if m.Goal != "" {
		g, err := refactor.ParseGoal(m.Goal)
		if err != nil {
			return Problem{}, fmt.Errorf("problem %s: %w", m.ID, err)
		}
		goal = g
	}
	if m.Tests != "" {
		tests := m.Tests
		if !filepath.IsAbs(tests) {
			tests = filepath.Join(base, tests)
		}
		if want := filepath.Join(filepath.Dir(file), "tests"); filepath.Clean(tests) != want {
			return Problem{}, fmt.Errorf("problem %s: tests %s: the judge reads the cases in %s, beside the file", m.ID, m.Tests, want)
		}
		if info, err := os.Stat(tests); err != nil || !info.IsDir() {
			return Problem{}, fmt.Errorf("problem %s: tests %s is not a directory", m.ID, m.Tests)
		}
	}
	abs, err := realPath(file)
	if err != nil {
		return Problem{}, err
	}
	return Problem{ID: m.ID, File: abs, Language: lang, Goal: goal}, nil
}

// realPath is path made absolute, through any symlinks: a dataset may link
// its problems from elsewhere, and the sessions run on the files
// themselves.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}
