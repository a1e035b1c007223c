package judge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ProblemFile is the name of the problem file of a case directory: it says
// how the problem's outputs are compared, for every program judged on
// those cases, and decides over Spec's comparison (the configuration's
// judge.compare). For example
//
//	compare: float        # whitespace (tokens) | exact | lines | float | checker
//	abs_tol: 1e-6         # float: |a-b| <= abs_tol or |a-b| <= rel_tol*|b|
//	rel_tol: 1e-6         # (both left out: 1e-6 each)
//
// or, for problems with several valid answers,
//
//	checker: checker.cc   # relative to the case directory; a .cc, .py, .java
//	                      # or .go source, or an executable
//	checker_build: [g++, -O2, -o, chk, "${file}"]    # optional
//	checker_run: [./chk, "${input}", "${output}", "${answer}"]   # optional
//	checker_time_limit: 5s                           # default 10s
//
// abs_tol or rel_tol alone mean compare: float, checker alone compare:
// checker. A file without any of these keys changes nothing.
const ProblemFile = "judge.yaml"

// maxProblemFile bounds the size of a problem file.
const maxProblemFile = 64 << 10

// problemFile is the content of a ProblemFile.
type problemFile struct {
	Compare          string    `yaml:"compare"`
	AbsTol           *float64  `yaml:"abs_tol"`
	RelTol           *float64  `yaml:"rel_tol"`
	Checker          string    `yaml:"checker"`
	CheckerBuild     *[]string `yaml:"checker_build"`
	CheckerRun       []string  `yaml:"checker_run"`
	CheckerTimeLimit yaml.Node `yaml:"checker_time_limit"`
}

// problemKeys lists the keys of a problem file, for messages.
const problemKeys = "compare, abs_tol, rel_tol, checker, checker_build, checker_run, checker_time_limit"

// withProblemFile applies the problem file of s.Dir, if there is one, over
// s's comparison. base is the judged file's directory.
func (s Spec) withProblemFile(base string) (Spec, error) {
	if s.Dir == "" {
		return s, nil
	}
	path := filepath.Join(s.Dir, ProblemFile)
	pf, err := readProblemFile(path)
	if err != nil || pf == nil {
		return s, err
	}
	compare := pf.Compare
	if compare == "" && pf.Checker != "" {
		compare = CompareChecker
	}
	if compare == "" && (pf.AbsTol != nil || pf.RelTol != nil) {
		compare = CompareFloat
	}
	checkerKeys := pf.Checker != "" || pf.CheckerBuild != nil || pf.CheckerRun != nil || pf.CheckerTimeLimit.Kind != 0
	switch {
	case compare == "" && !checkerKeys:
		return s, nil // nothing about the comparison
	case !validCompare(compare):
		return s, fmt.Errorf("%s: compare: %q is not one of %s", path, compare, strings.Join(compareModes(), ", "))
	case (pf.AbsTol != nil || pf.RelTol != nil) && compare != CompareFloat:
		return s, fmt.Errorf("%s: abs_tol and rel_tol apply to compare: %s only, not %s", path, CompareFloat, compare)
	case checkerKeys && pf.Checker == "":
		return s, fmt.Errorf("%s: checker_build, checker_run and checker_time_limit need checker: the checker's source or executable", path)
	case compare == CompareChecker && pf.Checker == "":
		return s, fmt.Errorf("%s: compare: %s needs checker: the checker's source or executable", path, CompareChecker)
	case pf.Checker != "" && compare != CompareChecker:
		return s, fmt.Errorf("%s: a checker decides the verdict alone: leave compare out, or write compare: %s, not %s", path, CompareChecker, compare)
	}
	s.Compare, s.AbsTol, s.RelTol, s.Checker = compare, 0, 0, Checker{}
	if pf.AbsTol != nil {
		s.AbsTol = *pf.AbsTol
	}
	if pf.RelTol != nil {
		s.RelTol = *pf.RelTol
	}
	if pf.Checker != "" {
		s.Checker.Path = pf.Checker
		if pf.CheckerBuild != nil {
			s.Checker.Build = append([]string{}, *pf.CheckerBuild...)
		}
		s.Checker.Run = pf.CheckerRun
		if pf.CheckerTimeLimit.Kind != 0 {
			d, err := problemDuration(&pf.CheckerTimeLimit)
			if err != nil {
				return s, fmt.Errorf("%s: line %d: checker_time_limit: %w", path, pf.CheckerTimeLimit.Line, err)
			}
			s.Checker.TimeLimit = d
		}
	}
	s = s.compareDefaults(base)
	if err := s.checkCompare(); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// readProblemFile reads and decodes the problem file at path; nil when
// there is none.
func readProblemFile(path string) (*problemFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the problem file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProblemFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading the problem file: %w", err)
	}
	if len(data) > maxProblemFile {
		return nil, fmt.Errorf("%s: the problem file is larger than %d bytes", path, maxProblemFile)
	}
	var pf problemFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&pf); err != nil && !errors.Is(err, io.EOF) {
		msg := strings.ReplaceAll(err.Error(), "in type judge.problemFile", "(the keys are "+problemKeys+")")
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	return &pf, nil
}

// problemDuration reads a duration: "5s", "500ms", or a number of seconds.
func problemDuration(n *yaml.Node) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, errors.New("must be a duration such as 5s or 500ms")
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		secs, ferr := strconv.ParseFloat(n.Value, 64)
		if ferr != nil {
			return 0, fmt.Errorf("%q is not a duration such as 5s or 500ms", n.Value)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 || d > time.Hour {
		return 0, fmt.Errorf("%q must be more than 0 and at most 1h", n.Value)
	}
	return d, nil
}
