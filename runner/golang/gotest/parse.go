package gotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
)

const (
	// maxMessage bounds a failure's message.
	maxMessage = 2 << 10
	// maxLine bounds one line of go test's stdout; test2json splits long
	// output lines, so only garbage reaches it.
	maxLine = 1 << 20
	// buildLimit bounds the compiler output kept for parsing.
	buildLimit = 64 << 10
)

var (
	// logLocRe matches a t.Log/t.Error line: "    file_test.go:13: message".
	logLocRe = regexp.MustCompile(`^\s*(\S+\.go):(\d+): `)
	// frameRe matches a stack frame's location: "\t/abs/file.go:13 +0x25"
	// (or an assembly file's). The runtime's fatal errors add
	// " fp=0x... sp=0x... pc=0x...".
	frameRe = regexp.MustCompile(`^(\t(\S.*\.(?:go|s)):(\d+)(?: \+0x[0-9a-f]+)?)(?: fp=0x[0-9a-f]+ sp=0x[0-9a-f]+ pc=0x[0-9a-f]+)?$`)
)

// event is one line of `go test -json` (test2json) output. Build events
// (Go 1.24+) carry ImportPath instead of Package.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// testState collects what one test printed and how it ended.
type testState struct {
	name   string
	result string // "pass", "fail", "skip", or "" while it runs
	msg    strings.Builder
	cut    bool // msg reached maxMessage and lines were dropped

	logFile   string // first "file.go:N:" line in its output
	logLine   int
	panicked  bool   // a crash report began: "panic:" or "fatal error:"
	crash     string // the line that began it
	skipFrame bool   // the next frame location belongs to a dropped frame
	panicFile string // first stack frame in the package after the crash line
	panicLine int
	// held is the last kept line of a crash report, held back until the
	// next line shows whether it is the function of a dropped frame.
	held      string
	holding   bool
	lastBlank bool // the last line added to msg in a crash report was blank
}

// collector turns a go test -json event stream into a report.
type collector struct {
	req     *request
	resolve func(string) string // path as printed -> absolute path

	out   *proc.LimitedBuffer // plain text of everything printed
	build *proc.LimitedBuffer // compiler output from build-output events

	pkg         string
	pkgResult   string
	pkgOutput   testState // package-level output, noise removed
	buildFailed bool
	sandboxErr  string // why the sandbox wrapper could not run the binary
	// memoryKilled: the confined test binary ran out of memory under the
	// sandbox's limit (killed at the cgroup's cap, or its runtime said so).
	memoryKilled bool
	// buildMemory is the build's memory limit when the kernel stopped a
	// process of the confined build at it (the C compiler on a cgo
	// preamble that reads /dev/zero): go test then says only that cc1
	// was killed. 0 otherwise.
	buildMemory int64
	tests       map[string]*testState
	order       []*testState
}

func newCollector(req *request, resolve func(string) string, out *proc.LimitedBuffer) *collector {
	return &collector{
		req:     req,
		resolve: resolve,
		out:     out,
		build:   proc.NewLimitedBuffer(buildLimit),
		tests:   make(map[string]*testState),
	}
}

// consume reads the event stream to its end. Lines that are not JSON events
// are kept as plain output. It always drains r, so the writer never blocks.
func (c *collector) consume(r io.Reader) error {
	return readLines(r, maxLine, func(line []byte) {
		var ev event
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && trimmed[0] == '{' {
			if err := json.Unmarshal(trimmed, &ev); err == nil && ev.Action != "" {
				c.handle(&ev)
				return
			}
		}
		_, _ = c.out.Write(line)
	})
}

// handle applies one event.
func (c *collector) handle(ev *event) {
	switch ev.Action {
	case "build-output":
		_, _ = c.out.Write([]byte(ev.Output))
		_, _ = c.build.Write([]byte(ev.Output))
	case "build-fail":
		c.buildFailed = true
	case "start":
		c.pkg = ev.Package
	case "run":
		c.test(ev.Test)
	case "output":
		_, _ = c.out.Write([]byte(ev.Output))
		if ev.Test != "" {
			c.test(ev.Test).add(ev.Output, c)
			return
		}
		if strings.Contains(ev.Output, "[build failed]") || strings.Contains(ev.Output, "[setup failed]") {
			c.buildFailed = true
		}
		if msg, ok := strings.CutPrefix(ev.Output, sandboxErrorPrefix); ok && c.sandboxErr == "" {
			c.sandboxErr = strings.TrimSpace(msg)
		}
		if !isSummary(ev.Output) {
			c.pkgOutput.add(ev.Output, c)
		}
	case "pass", "fail", "skip":
		if ev.Test != "" {
			c.test(ev.Test).result = ev.Action
			return
		}
		c.pkgResult = ev.Action
		if ev.Package != "" {
			c.pkg = ev.Package
		}
		if ev.FailedBuild != "" {
			c.buildFailed = true
		}
	}
}

// test returns the state of the named test, creating it in run order.
func (c *collector) test(name string) *testState {
	t, ok := c.tests[name]
	if !ok {
		t = &testState{name: name}
		c.tests[name] = t
		c.order = append(c.order, t)
	}
	return t
}

// add records one output line of a test, skipping go test's own framing.
func (t *testState) add(line string, c *collector) {
	if isNoise(line) {
		return
	}
	text := strings.TrimRight(line, "\r\n")
	if !t.panicked && isCrash(text) {
		t.panicked = true
		t.crash = text
	}
	if t.logFile == "" && !t.panicked {
		if m := logLocRe.FindStringSubmatch(text); m != nil {
			t.logFile, t.logLine = c.resolve(m[1]), atoi(m[2])
		}
	}
	if !t.panicked {
		t.appendMessage(text)
		return
	}
	if m := frameRe.FindStringSubmatch(text); m != nil {
		if file, ok := c.packageFile(m[2]); ok && t.panicFile == "" {
			t.panicFile, t.panicLine = file, atoi(m[3])
		}
		if t.skipFrame {
			t.skipFrame = false
			return
		}
		if path.Base(filepath.ToSlash(m[2])) == "_testmain.go" {
			// The test binary's generated main: drop it with its function.
			t.holding = false
			return
		}
		t.hold(m[1])
		return
	}
	// Frames of the testing package and the runtime say nothing about the
	// bug; drop them with their location lines.
	t.skipFrame = isMachineryFrame(text)
	if t.skipFrame || isGoroutineHeader(text) || text == "runtime stack:" {
		return
	}
	t.hold(text)
}

// isCrash reports whether a line begins a crash report: a panic, or a fatal
// error of the runtime (out of memory, concurrent map writes, deadlock).
func isCrash(line string) bool {
	return strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")
}

// hold adds the line held back so far to the message and holds text.
func (t *testState) hold(text string) {
	t.release()
	t.held, t.holding = text, true
}

// release adds the held line to the message. Runs of blank lines, which
// separate goroutines in a fatal error's dump, are added as one.
func (t *testState) release() {
	if !t.holding {
		return
	}
	t.holding = false
	blank := strings.TrimSpace(t.held) == ""
	if blank && t.lastBlank {
		return
	}
	t.lastBlank = blank
	t.appendMessage(t.held)
}

// isMachineryFrame reports whether a line of a goroutine dump names a
// function of the test runner or the runtime.
func isMachineryFrame(line string) bool {
	for _, p := range []string{"testing.", "runtime.", "panic(", "created by testing.", "created by runtime."} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// isGoroutineHeader reports whether line starts a goroutine's stack dump:
// "goroutine 7 [running]:".
func isGoroutineHeader(line string) bool {
	return strings.HasPrefix(line, "goroutine ") && strings.HasSuffix(line, ":")
}

// appendMessage adds a line to the message while it fits in maxMessage.
func (t *testState) appendMessage(text string) {
	if t.cut {
		return
	}
	if t.msg.Len() > 0 {
		text = "\n" + text
	}
	if room := maxMessage - t.msg.Len(); len(text) > room {
		text = text[:room]
		for len(text) > 0 && !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		t.cut = true
	}
	t.msg.WriteString(text)
}

// message returns the test's output as a failure message. The line that
// began a crash report is kept even when the output before it filled the
// message. Call it once the output has ended.
func (t *testState) message() string {
	t.release()
	msg := strings.TrimSpace(t.msg.String())
	if t.cut {
		msg += "\n... (output truncated)"
		if t.crash != "" && !strings.Contains(msg, t.crash) {
			msg += "\n" + t.crash
		}
	}
	return msg
}

// packageFile reports whether a stack frame's path is a file of the package
// under test, and returns its absolute path. Frames built with -trimpath
// name files by import path.
func (c *collector) packageFile(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		dir := path.Dir(p)
		if dir == c.req.importPath || (c.pkg != "" && dir == c.pkg) {
			return filepath.Join(c.req.dir, path.Base(p)), true
		}
		return "", false
	}
	abs := c.resolve(p)
	return abs, filepath.Dir(abs) == c.req.dir
}

// report builds the TestReport once the stream has ended. timedOut says the
// run was killed at its time limit; stderr is the go command's error output.
func (c *collector) report(timedOut bool, stderr string) *runner.TestReport {
	rep := &runner.TestReport{
		Package:  c.pkg,
		Failures: []runner.TestFailure{},
		TimedOut: timedOut,
		Output:   c.out.String(),
	}
	if rep.Package == "" {
		rep.Package = c.req.importPath
	}
	if c.buildFailed {
		rep.BuildFailed = true
		rep.BuildErrors = c.buildErrors(stderr)
		return rep
	}
	for _, t := range c.order {
		switch t.result {
		case "pass":
			rep.Passed++
			rep.PassedTests = append(rep.PassedTests, t.name)
		case "skip":
			rep.Skipped++
		case "fail":
			rep.Failed++
			rep.Failures = append(rep.Failures, c.failure(t, ""))
		default:
			reason := "test did not finish: the test binary exited early"
			if timedOut {
				reason = fmt.Sprintf("%s: test timed out after %v (still running when the run was stopped)", t.name, c.req.timeout)
			} else if note := c.memoryNote(t.message()); note != "" {
				reason = "test did not finish: " + note
			}
			rep.Failed++
			rep.Failures = append(rep.Failures, c.failure(t, reason))
		}
	}
	if c.pkgResult == "fail" && rep.Failed == 0 && !timedOut {
		// The package failed outside any test: TestMain, init, os.Exit.
		msg := c.pkgOutput.message()
		if msg == "" {
			msg = "the package's tests failed outside any test (in TestMain, init or an os.Exit call)"
		} else if note := c.memoryNote(msg); note != "" {
			msg = note + "\n" + msg
		}
		f := runner.TestFailure{Test: rep.Package, Message: msg}
		if c.pkgOutput.panicFile != "" {
			f.File, f.Line = c.pkgOutput.panicFile, c.pkgOutput.panicLine
		} else {
			f.File, f.Line = c.declaration("TestMain")
		}
		rep.Failed++
		rep.Failures = append(rep.Failures, f)
	}
	rep.Total = rep.Passed + rep.Failed + rep.Skipped
	slices.Sort(rep.PassedTests)
	return rep
}

// memoryNote explains a crash for lack of memory under the sandbox's memory
// limit, or returns "" if msg shows no such crash or there is no limit.
func (c *collector) memoryNote(msg string) string {
	limit := c.req.sandbox.MemoryLimit
	if limit <= 0 || !outOfMemory(msg) {
		return ""
	}
	return fmt.Sprintf("out of memory: the test binary exceeded the sandbox's memory limit of %s", formatBytes(limit))
}

// outOfMemory reports whether a crash message says the process ran out of
// memory: the Go runtime's "out of memory" errors, or ENOMEM from mmap or
// thread creation ("cannot allocate memory", "errno=12").
func outOfMemory(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "out of memory") || strings.Contains(m, "cannot allocate memory") || strings.Contains(m, "errno=12")
}

// failure describes a failed test. reason, if set, heads the message (time
// out, early exit). The location is the panic's first frame in the package,
// else the first logged location, else the test's declaration.
func (c *collector) failure(t *testState, reason string) runner.TestFailure {
	f := runner.TestFailure{Test: t.name, Message: t.message()}
	if reason != "" {
		f.Message = strings.TrimSpace(reason + "\n" + f.Message)
	}
	if f.Message == "" {
		if failed := c.failedSubtests(t.name); len(failed) > 0 {
			f.Message = "subtests failed: " + strings.Join(failed, ", ")
		} else {
			f.Message = "test failed"
		}
	}
	switch {
	case t.panicFile != "":
		f.File, f.Line = t.panicFile, t.panicLine
	case t.logFile != "":
		f.File, f.Line = t.logFile, t.logLine
	default:
		f.File, f.Line = c.declaration(t.name)
	}
	return f
}

// failedSubtests names the failed (or unfinished) subtests of name.
func (c *collector) failedSubtests(name string) []string {
	var names []string
	for _, t := range c.order {
		if strings.HasPrefix(t.name, name+"/") && t.result != "pass" && t.result != "skip" {
			names = append(names, t.name)
		}
	}
	return names
}

// declaration finds "func TestName(" of a test's top-level function in the
// package's test files.
func (c *collector) declaration(name string) (string, int) {
	top, _, _ := strings.Cut(name, "/")
	prefix := []byte("func " + top + "(")
	files := make([]string, 0, len(c.req.testSources))
	for f := range c.req.testSources {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		for i, line := range bytes.Split(c.req.testSources[f], []byte("\n")) {
			if bytes.HasPrefix(line, prefix) {
				return filepath.Join(c.req.dir, f), i + 1
			}
		}
	}
	return "", 0
}

// buildErrors parses the compiler output of build events and stderr. If
// nothing parses, one alert at the top of the file that was asked about
// carries the text.
func (c *collector) buildErrors(stderr string) []runner.Alert {
	text := c.build.String() + "\n" + stderr
	note := ""
	if c.buildMemory > 0 {
		note = fmt.Sprintf("out of memory: the build exceeded the sandbox's memory limit of %s", formatBytes(c.buildMemory))
	}
	alerts := parseBuildErrors(text, c.resolve)
	if len(alerts) > 0 {
		if note != "" {
			alerts = append(alerts, compilerAlert(note))
		}
		return alerts
	}
	msg := strings.TrimSpace(text)
	if note != "" {
		msg = note + "\n" + msg
	}
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "\n... (output truncated)"
	}
	if msg == "" {
		msg = "build failed"
	}
	return []runner.Alert{compilerAlert(msg)}
}

// compilerAlert is a build error placed in no file: the cached report is
// shared by every file of the package, so it must not name the one that
// asked first.
func compilerAlert(msg string) runner.Alert {
	return runner.Alert{
		Line:     1,
		Column:   1,
		Severity: runner.SeverityError,
		Source:   "compiler",
		Message:  msg,
		Category: runner.CategoryFor("compiler", ""),
	}
}

// isNoise reports whether a test output line is go test's framing rather
// than what the test printed.
func isNoise(line string) bool {
	s := strings.TrimSpace(line)
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL:", "--- PASS:", "--- SKIP:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isSummary reports whether a package-level output line is go test's
// summary ("PASS", "FAIL\tpkg\t0.1s", "ok ...", "? ... [no test files]").
func isSummary(line string) bool {
	s := strings.TrimSpace(line)
	switch {
	case s == "", s == "PASS", s == "FAIL",
		strings.HasPrefix(s, "FAIL\t"), strings.HasPrefix(s, "ok "), strings.HasPrefix(s, "ok\t"),
		strings.HasPrefix(s, "?"), strings.HasPrefix(s, "testing: warning: no tests to run"):
		return true
	}
	return false
}

// readLines calls fn with each line of r (newline included), cutting lines
// longer than max. fn must not keep the slice.
func readLines(r io.Reader, max int, fn func(line []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if room := max - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			fn(line)
		}
		line = line[:0]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// elapsed rounds a duration for logs.
func elapsed(start time.Time) time.Duration {
	return time.Since(start).Round(time.Millisecond)
}
