package java

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// emptyParens is the "()" JUnit's legacy reporting names give methods
// without parameters ("sum()", "values()[1]"); test names drop it.
var emptyParens = regexp.MustCompile(`\(\)(\[|$)`)

// testName turns a JUnit legacy reporting name into a test name.
func testName(name string) string { return emptyParens.ReplaceAllString(name, "$1") }

// fixNames drops the "()" of parameterless methods from rep's test names.
func fixNames(rep *runner.TestReport) {
	for i, n := range rep.PassedTests {
		rep.PassedTests[i] = testName(n)
	}
	for i := range rep.Failures {
		rep.Failures[i].Test = testName(rep.Failures[i].Test)
	}
}

// splitTest splits a test name into its class and method
// ("example.StatsTest", "max").
func splitTest(name string) (class, method string) {
	base := name
	if i := strings.IndexAny(base, "(["); i >= 0 {
		base = base[:i]
	}
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return "", base
	}
	return base[:i], base[i+1:]
}

// frameFile is the file and line part of a stack frame.
const frameFile = `\(([^():]+\.java):(\d+)\)`

// placeFailures sets the file and line of each failure from its stack
// trace, at the test method's own frame (else the first frame in the test's
// class, else the first frame in any of the project's files), and trims
// the JUnit and JDK frames from its message.
func (r *testRun) placeFailures(rep *runner.TestReport) {
	for i := range rep.Failures {
		f := &rep.Failures[i]
		if f.File == "" {
			f.File, f.Line = r.locate(f.Test, f.Message)
		}
		f.Message = trimStack(f.Message)
	}
}

// locate finds where a failure's stack trace enters the test.
func (r *testRun) locate(test, trace string) (string, int) {
	class, method := splitTest(test)
	var patterns []string
	if class != "" {
		q := regexp.QuoteMeta(class)
		patterns = append(patterns,
			`at (?:\S+/)?(`+q+`)(?:\$[\w$]+)?\.`+regexp.QuoteMeta(method)+frameFile,
			`at (?:\S+/)?(`+q+`)(?:\$[\w$]+)?\.[\w$<>]+`+frameFile)
	}
	patterns = append(patterns, `at (?:\S+/)?([\w$.]+)\.[\w$<>]+`+frameFile)
	for _, p := range patterns {
		for _, m := range regexp.MustCompile(p).FindAllStringSubmatch(trace, -1) {
			if file, ok := r.sourceOf(m[1], m[2]); ok {
				return file, atoi(m[3])
			}
		}
	}
	return "", 0
}

// sourceOf returns the user's file of a class's frame: the file name the
// frame gives, in the class's package.
func (r *testRun) sourceOf(class, name string) (string, bool) {
	class, _, _ = strings.Cut(class, "$")
	pkg := ""
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		pkg = class[:i]
	}
	file, ok := r.files[filepath.Join(packageDir(pkg), name)]
	return file, ok
}

// frameworkFrames start the stack frames trimStack drops.
var frameworkFrames = []string{
	"org.junit.", "org.opentest4j.", "org.apiguardian.", "java.", "javax.", "jdk.", "sun.", "com.sun.",
}

// trimStack drops from a failure message the stack frames of JUnit and of
// the JDK, keeping the exception, "Caused by:" lines and the project's
// frames.
func trimStack(msg string) string {
	lines := strings.Split(msg, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if frame, ok := strings.CutPrefix(strings.TrimSpace(l), "at "); ok {
			// Drop a module or class loader prefix ("java.base/java.lang...").
			head, _, _ := strings.Cut(frame, "(")
			if j := strings.LastIndexByte(head, '/'); j >= 0 {
				frame = frame[j+1:]
			}
			if isFrameworkFrame(frame) {
				continue
			}
		}
		kept = append(kept, l)
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

func isFrameworkFrame(frame string) bool {
	for _, p := range frameworkFrames {
		if strings.HasPrefix(frame, p) {
			return true
		}
	}
	return false
}

var (
	uniqueIDLine = regexp.MustCompile(`^uniqueId: (.*)$`)
	uniqueIDSeg  = regexp.MustCompile(`\[([a-z-]+):(.*?)\](?:/|$)`)
)

// addPartial fills rep from the console launcher's verbose output of a
// run cut short: the tests that finished, and the one that was running,
// which failed with time_limit_exceeded at the time limit, with
// memory_limit_exceeded when the JVM ran out of memory, else with
// runtime_error (a test that called System.exit, a crash). A launcher that
// ended without running any test, not at the time limit, is one failure
// named after the project.
func addPartial(rep *runner.TestReport, res *sandbox.Result) {
	lastID, caught := "", ""
	for _, line := range strings.Split(res.Stdout, "\n") {
		line = strings.TrimLeft(line, "│├└─╷ \t")
		if m := uniqueIDLine.FindStringSubmatch(line); m != nil {
			lastID, caught = m[1], ""
			continue
		}
		if msg, ok := strings.CutPrefix(line, "caught: "); ok && lastID != "" {
			caught = msg
			continue
		}
		status, ok := strings.CutPrefix(line, "status: ")
		if !ok || lastID == "" {
			continue
		}
		// A status right after a test's id (no other id between) is a
		// leaf's: containers report theirs after their children's.
		name := uniqueIDName(lastID)
		lastID = ""
		if name != "" {
			addStatus(rep, name, status, caught)
		}
	}
	running := uniqueIDName(lastID)
	switch {
	case running != "":
		rep.Total++
		rep.Failed++
		rep.Failures = append(rep.Failures, cutShort(running, res))
	case !res.TimedOut && !res.OK() && rep.Total == 0:
		addLauncherFailure(rep, res)
	}
}

// addStatus counts a test that finished with status ("✔ SUCCESSFUL").
func addStatus(rep *runner.TestReport, name, status, caught string) {
	rep.Total++
	switch {
	case strings.Contains(status, "SUCCESSFUL"):
		rep.Passed++
		rep.PassedTests = append(rep.PassedTests, name)
	case strings.Contains(status, "SKIPPED"), strings.Contains(status, "ABORTED"):
		rep.Skipped++
	default:
		rep.Failed++
		rep.Failures = append(rep.Failures, runner.TestFailure{Test: name, Message: strings.TrimSpace(caught + "\n" + status)})
	}
}

// cutShort is the failure of the test that was running when the run ended.
func cutShort(name string, res *sandbox.Result) runner.TestFailure {
	f := runner.TestFailure{Test: name}
	switch {
	case res.TimedOut:
		f.Kind = runner.FailureTimeLimit
		f.Message = "test did not finish: the run's " + res.ExitText()
	case res.MemoryExceeded:
		f.Kind = runner.FailureMemoryLimit
		f.Message = "test did not finish: out of memory"
	default:
		f.Kind = runner.FailureRuntimeError
		f.Message = "test did not finish: the JVM ended (" + res.ExitText() + ")"
	}
	if errText := strings.TrimSpace(res.Stderr); errText != "" && !res.TimedOut {
		f.Message += "\n" + tail(errText)
	}
	return f
}

// uniqueIDName turns a JUnit unique id into a test name
// ("[engine:junit-jupiter]/[class:a.BTest]/[method:m()]" is "a.BTest.m"),
// or "" for an id of no test method (an engine, a class).
func uniqueIDName(id string) string {
	class, method, suffix := "", "", ""
	for _, m := range uniqueIDSeg.FindAllStringSubmatch(id, -1) {
		switch typ, val := m[1], m[2]; typ {
		case "class":
			class = val
		case "nested-class":
			class += "$" + val
		case "method", "test-template", "test-factory":
			method = val
		case "test-template-invocation", "dynamic-test", "dynamic-container":
			suffix += "[" + strings.TrimPrefix(val, "#") + "]"
		}
	}
	if method == "" {
		return ""
	}
	name := method + suffix
	if class != "" {
		name = class + "." + name
	}
	return testName(name)
}

// addLauncherFailure records a launcher that ended without a report (a
// test called System.exit, the JVM ran out of memory at start-up) as one
// failure named after the project.
func addLauncherFailure(rep *runner.TestReport, res *sandbox.Result) {
	kind := runner.FailureRuntimeError
	if res.MemoryExceeded {
		kind = runner.FailureMemoryLimit
	}
	msg := "the JUnit console launcher ended without a report (" + res.ExitText() + ")"
	if errText := strings.TrimSpace(res.Stderr); errText != "" {
		msg += "\n" + tail(errText)
	}
	rep.Total++
	rep.Failed++
	rep.Failures = append(rep.Failures, runner.TestFailure{Test: rep.Package, Message: msg, Kind: kind})
}

// tail keeps the last reportOutputLimit bytes of s.
func tail(s string) string {
	if len(s) <= reportOutputLimit {
		return s
	}
	cut := len(s) - reportOutputLimit
	for cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut++
	}
	return "... " + strconv.Itoa(cut) + " bytes omitted ...\n" + s[cut:]
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "no output"
}
