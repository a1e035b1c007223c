//go:build linux

package attack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/runner/golang/golist"
	"github.com/fixloop/fixloop/runner/golang/gotest"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/java"
	"github.com/fixloop/fixloop/runner/python"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// jobEnv makes the test binary act as fixloop running one candidate's
// tests (see TestMain), so that a test can run it as another user.
const jobEnv = "FIXLOOP_ATTACK_JOB"

// nobody is the unprivileged user the attacks run as the second time.
const nobody = 65534

// jobTimeout is the test timeout of a job's run, build included, in
// wall-clock time: room for a loaded machine (issue 23). No candidate
// needs it to end: each ends on its own or at its memory cap.
const jobTimeout = 5 * time.Minute

// maxFixloopRSS bounds the peak resident memory (VmHWM) of the fixloop
// process in every job: whatever a candidate leaves, fixloop reads at most
// a bounded part of it. Doubled under the race detector (raceFactor).
const maxFixloopRSS = 500 << 20 * raceFactor

// jobEnd bounds, with room for a loaded machine, how long a job's fixloop
// process may take before the test kills it and fails: the job ends on its
// own within its ten minutes unless something blocks it (a FIFO opened for
// reading, issue 24).
const jobEnd = 20 * time.Minute

// cppTest is the test command of the C++ jobs, and cppReports its
// junitXml glob: the candidate is a test program that writes its own
// report.
var (
	cppTest    = []string{"sh", "-c", "g++ -O0 -o attack_test attack_test.cc && ./attack_test"}
	cppReports = "reports/*.xml"
)

// job is what the fixloop process is asked to do.
type job struct {
	Lang       string // "go", "python", "java" or "cpp"
	File       string // the candidate's path in the project
	Source     string // its text, __FIXLOOP_PID__ still to fill in
	Unconfined bool   // sandbox: none (the control runs)
}

// jobResult is what it prints.
type jobResult struct {
	Report *runner.TestReport
	Err    string
	// Output is the report's raw output, which its JSON leaves out but
	// feedback quotes.
	Output string
	// PeakRSS is the job's own VmHWM in bytes (0: unknown), fixloop's
	// alone: the sandboxed runs are other processes.
	PeakRSS int64
}

// fixJobEnv makes the test binary act as fixloop running a fix session
// (see runFix), for the cgo attacks.
const fixJobEnv = "FIXLOOP_ATTACK_FIX_JOB"

func TestMain(m *testing.M) {
	// The confined load of a candidate's Go packages runs this binary.
	golist.Serve()
	if spec := os.Getenv(jobEnv); spec != "" {
		os.Exit(runJob(spec))
	}
	if spec := os.Getenv(fixJobEnv); spec != "" {
		var j fixJob
		if err := json.Unmarshal([]byte(spec), &j); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		_ = json.NewEncoder(os.Stdout).Encode(runFix(j))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runJob runs one candidate's tests with the runner fixloop's sessions
// use, logging to stderr, and prints the report as JSON.
func runJob(spec string) int {
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	src := strings.ReplaceAll(j.Source, "__FIXLOOP_PID__", strconv.Itoa(os.Getpid()))
	overlay := map[string][]byte{j.File: []byte(src)}
	// Room for a loaded machine (issue 23): every candidate ends on its
	// own or at its memory cap, and the run's timeout is the runner's.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if j.Unconfined {
		ctx = sandbox.Unconfined(ctx)
	}
	logger.Info("attack job", "lang", j.Lang, "uid", os.Getuid(), "sandbox", sandbox.Probe().String())
	var rep *runner.TestReport
	var err error
	switch j.Lang {
	case "go":
		rep, err = gotest.NewSandboxed(logger, gotest.CandidateSandbox()).Run(ctx, j.File, overlay, jobTimeout)
	case "python":
		rep, err = python.NewTester(python.TesterOptions{Logger: logger}).Test(ctx, j.File, overlay, jobTimeout)
	case "java":
		// As the server's tester: the sandbox's default memory cap.
		rep, err = java.NewTester(java.TesterOptions{Logger: logger, MemoryLimit: sandbox.DefaultMemoryLimit}).Test(ctx, j.File, overlay, jobTimeout)
	case "cpp":
		rep, err = cpp.NewCommandTester(cpp.CommandTesterOptions{Command: cppTest, JUnitXML: cppReports, Logger: logger}).Test(ctx, j.File, overlay, jobTimeout)
	}
	res := jobResult{Report: rep, PeakRSS: peakRSS()}
	if rep != nil {
		res.Output = rep.Output
	}
	if err != nil {
		res.Err = err.Error()
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// peakRSS is this process's peak resident memory (VmHWM) in bytes, 0 when
// /proc does not say.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// world is what a candidate attacks: the user's project, an unrelated
// directory, a home with an SSH key and a private file that reads as a
// JUnit report (what a leftover's symlink would leak whole), listeners on
// the host, and secrets in fixloop's environment.
type world struct {
	base, home, proj, victim string
	marker                   string
	unixAddr, tcpAddr        string
	canaries                 []string
	got                      atomic.Int64 // connections the listeners accepted
}

func newWorld(t *testing.T, lang string, uid int) *world {
	t.Helper()
	base, err := os.MkdirTemp("", "fixloop-attack-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	id := fmt.Sprintf("%d%06d", time.Now().UnixNano()%1e9, os.Getpid()%1e6)
	w := &world{
		base: base, home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"), victim: filepath.Join(base, "victim"),
		marker:   "30.0" + id, // a sleep time, and a file name
		canaries: []string{"CANARY-SSH-" + id, "CANARY-LLMKEY-" + id, "CANARY-OPENAI-" + id, "CANARY-TOKEN-" + id, "CANARY-REPORT-" + id},
	}
	hostReport := fmt.Sprintf(`<testsuite><testcase classname="%[1]s" name="%[1]s"><failure message="%[1]s">%[1]s</failure></testcase></testsuite>`, w.canaries[4])
	files := map[string]string{
		"home/.ssh/id_rsa":              w.canaries[0] + "\n",
		"home/private/TEST-results.xml": hostReport,
		"victim/important.txt":          "the user's other project\n",
	}
	switch lang {
	case "go":
		files["proj/go.mod"] = "module example.com/p\n\ngo 1.22\n"
		files["proj/p.go"] = "package p\n\nfunc Add(a, b int) int { return a + b }\n"
		files["proj/p_test.go"] = "package p\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n"
	case "python":
		files["proj/conftest.py"] = ""
		files["proj/calc.py"] = "def add(a, b):\n    return a + b\n"
		files["proj/test_calc.py"] = "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
	case "java":
		files["proj/Calc.java"] = "public class Calc {\n    static int add(int a, int b) { return a + b; }\n}\n"
	case "cpp":
		files["proj/calc.h"] = "inline int add(int a, int b) { return a + b; }\n"
	}
	for name, text := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, secret := range []string{".ssh/id_rsa", "private/TEST-results.xml"} {
		_ = os.Chmod(filepath.Dir(filepath.Join(w.home, secret)), 0o700)
		_ = os.Chmod(filepath.Join(w.home, secret), 0o600)
	}

	// Listeners that count what reaches them; the socket's directory is
	// open to everyone, so only the sandbox keeps a candidate out.
	sockDir := filepath.Join(base, "sock")
	if err := os.Mkdir(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	w.unixAddr = filepath.Join(sockDir, "s.sock")
	for _, addr := range [][2]string{{"unix", w.unixAddr}, {"tcp", "127.0.0.1:0"}} {
		ln, err := net.Listen(addr[0], addr[1])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		if addr[0] == "tcp" {
			w.tcpAddr = ln.Addr().String()
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				w.got.Add(1)
				c.Close()
			}
		}()
	}
	_ = os.Chmod(w.unixAddr, 0o777)
	if uid != 0 {
		chownAll(t, base, uid)
	}
	_ = os.Chmod(base, 0o755)
	return w
}

func chownAll(t *testing.T, root string, uid int) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// source fills the world into a candidate.
func (w *world) source(src string) string {
	return strings.NewReplacer("__PROJ__", w.proj, "__VICTIM__", w.victim, "__HOME__", w.home,
		"__MARKER__", w.marker, "__TCP__", w.tcpAddr, "__UNIX__", w.unixAddr).Replace(src)
}

// snapshot hashes every file under the world's project, victim and home.
func (w *world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{w.proj, w.victim, w.home} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if p == filepath.Join(w.home, ".config") {
				// The go command's telemetry counters, which fixloop's own
				// `go env` on the host updates; candidates see another home.
				return filepath.SkipDir
			}
			if err != nil {
				out[p] = "error: " + err.Error()
				return nil
			}
			if d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				sum := sha256.Sum256(b)
				out[p] = hex.EncodeToString(sum[:])
			} else {
				out[p] = d.Type().String()
			}
			return nil
		})
	}
	return out
}

// runner is how the fixloop process is started: as root, or as another
// user through setpriv.
type asUser struct {
	name    string
	uid     int
	gocache string
}

// binary copies this test binary where every user may run it and reach
// it by its path: the confined load of a candidate's Go packages runs it
// again, in the sandbox, where its directory is shown (t.TempDir's parent
// is private to root).
func binary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "fixloop-attack-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	_ = os.Chmod(dir, 0o755)
	dst := filepath.Join(dir, "attack.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// run runs the job as u and returns its result, its log and its pid.
func (w *world) run(t *testing.T, bin string, u asUser, j job) (jobResult, string, int) {
	t.Helper()
	spec, _ := json.Marshal(j)
	args := []string{bin, "-test.run=^$"}
	if u.uid != 0 {
		args = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = w.base
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "GOCACHE=" + u.gocache, "GOPATH=" + filepath.Join(w.home, "go"),
		"GOFLAGS=" + os.Getenv("GOFLAGS"), "GOTOOLCHAIN=local", "LANG=C.UTF-8",
		"LLM_KEY=" + w.canaries[1], "OPENAI_API_KEY=" + w.canaries[2], "GITHUB_TOKEN=" + w.canaries[3],
		jobEnv + "=" + string(spec),
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A fixloop blocked for good (in open() on a FIFO, issue 24) would
	// never end: it is killed, and the test fails.
	var killed atomic.Bool
	timer := time.AfterFunc(jobEnd, func() { killed.Store(true); _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	if killed.Load() {
		t.Fatalf("the fixloop process did not end within %v: killed\nstderr:\n%s", jobEnd, stderr.String())
	}
	if err != nil {
		t.Fatalf("the fixloop process failed: %v\n%s", err, stderr.String())
	}
	var res jobResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("reading the job's result: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return res, stderr.String(), cmd.Process.Pid
}

// users returns root and nobody, each with a build cache it may write.
func users(t *testing.T) []asUser {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the attack suite runs fixloop as root and as nobody: run it as root (CI does)")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("setpriv (util-linux) is needed to run fixloop as nobody")
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(os.TempDir(), "fixloop-attack-gocache")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	chownAll(t, shared, nobody)
	warmGoCache(t, shared)
	return []asUser{
		{name: "root", uid: 0, gocache: strings.TrimSpace(string(out))},
		{name: "nobody", uid: nobody, gocache: shared},
	}
}

// warmGoCache builds, once per test process, as nobody and into nobody's
// build cache, what every Go job needs before the candidate: test2json
// (Go 1.26 ships it unbuilt, and gotest's first confined run builds it
// with `go tool -n test2json`, outside the run's timeout) and the
// standard packages that the candidates and a test binary import. The
// first job as nobody (the fork bomb, first by name) used to build them
// all within its three minutes, from an empty cache, and a loaded CI
// machine outran them: "context deadline exceeded" (issue 23). Now each
// job builds only its candidate.
func warmGoCache(t *testing.T, cache string) {
	t.Helper()
	warmOnce.Do(func() { warmErr = warm(cache) })
	if warmErr != nil {
		t.Fatal(warmErr)
	}
}

var (
	warmOnce sync.Once
	warmErr  error
)

func warm(cache string) error {
	if _, err := exec.LookPath("go"); err != nil {
		return nil // no Go job will run
	}
	dir, err := os.MkdirTemp("", "fixloop-attack-warm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"go.mod":    "module example.com/p\n\ngo 1.22\n",
		"p_test.go": goHeader + "\nfunc attack() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		return err
	}
	// Setup, not what the suite tests: bounded only against a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"go", "tool", "-n", "test2json"},
		{"go", "test", "-count=1", "-vet=off", "-run=^$", "."},
	} {
		cmd := exec.CommandContext(ctx, "setpriv", append([]string{"--reuid=" + strconv.Itoa(nobody), "--regid=" + strconv.Itoa(nobody), "--clear-groups"}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GOCACHE=" + cache, "GOPATH=" + filepath.Join(dir, "gopath"),
			"GOFLAGS=" + os.Getenv("GOFLAGS"), "GOTOOLCHAIN=local", "GOPROXY=off", "LANG=C.UTF-8",
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("warming nobody's build cache: %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

func needTools(t *testing.T, lang string) {
	t.Helper()
	tools := map[string][]string{"go": {"go"}, "python": {"pytest-3"}, "java": {"javac", "java"}, "cpp": {"g++"}}[lang]
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI must have %s", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	if lang == "java" {
		if _, err := java.FindJUnit(); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI must have the JUnit console launcher: %v", err)
			}
			t.Skip(err)
		}
	}
	sandboxtest.NeedConfinement(t)
}

func candidateFile(w *world, lang string) string {
	return filepath.Join(w.proj, map[string]string{
		"go": "attack_test.go", "python": "test_attack.py", "java": "AttackTest.java", "cpp": "attack_test.cc",
	}[lang])
}

// TestAttacks runs every attack in each language it is written in (Go,
// Python; the leftovers also in Java and C++), with fixloop as root and as
// nobody, and checks that it did no harm and leaked nothing.
func TestAttacks(t *testing.T) {
	us := users(t)
	bin := binary(t)
	names := make([]string, 0, len(candidates))
	for n := range candidates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, lang := range []string{"go", "python", "java", "cpp"} {
		for _, u := range us {
			for _, name := range names {
				c := candidates[name]
				src := c.src(lang)
				if src == "" {
					continue
				}
				t.Run(lang+"/"+u.name+"/"+name, func(t *testing.T) {
					needTools(t, lang)
					w := newWorld(t, lang, u.uid)
					before := w.snapshot(t)
					res, logs, pid := w.run(t, bin, u, job{Lang: lang, File: candidateFile(w, lang), Source: w.source(src)})
					w.check(t, name, u, res, logs, pid, before)
				})
			}
		}
	}
}

// check asserts what must hold after any attack.
func (w *world) check(t *testing.T, name string, u asUser, res jobResult, logs string, fixloopPID int, before map[string]string) {
	t.Helper()
	if res.Err != "" || res.Report == nil {
		t.Fatalf("the run failed: %s\nlogs:\n%s", res.Err, logs)
	}
	reportJSON, _ := json.Marshal(res.Report)
	text := string(reportJSON) + "\n" + res.Output
	killedAtCap := name == "map-shared" && strings.Contains(text, "memory_limit_exceeded")
	if !strings.Contains(text, "ATTACK-RAN") && !killedAtCap {
		t.Fatalf("the candidate did not run: %s\nlogs:\n%s", text, logs)
	}
	if want := candidates[name].expect; want != "" && !strings.Contains(text, want) {
		t.Errorf("the report does not say %q: the attack did not do its part, or fixloop did not refuse it: %s\nlogs:\n%s", want, text, logs)
	}
	switch {
	case res.PeakRSS == 0:
		t.Error("the job could not tell its peak memory (VmHWM)")
	case res.PeakRSS > maxFixloopRSS:
		t.Errorf("fixloop's own peak memory was %d MiB, over %d MiB", res.PeakRSS>>20, maxFixloopRSS>>20)
	default:
		t.Logf("fixloop's own peak memory: %d MiB", res.PeakRSS>>20)
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, `\n`, "\n"), "\n") {
		_, what, ok := strings.Cut(line, "ATTACK-SUCCEEDED:")
		if !ok {
			continue
		}
		what = strings.TrimRight(what, `"\,`)
		// The candidate's parent is in the sandbox with it (test2json,
		// pytest): tracing it reaches nothing of the user's. fixloop must
		// be out of reach.
		if pid, ok := strings.CutPrefix(what, "ptrace "); ok && pid != strconv.Itoa(fixloopPID) {
			continue
		}
		if name == "map-shared" && u.uid != 0 {
			// Without a memory cgroup (an unprivileged fixloop may make
			// none), shared memory is not capped: check --tools says so.
			t.Logf("not enforced here, as check --tools says: %s", what)
			continue
		}
		t.Errorf("the attack succeeded: %s", what)
	}
	after := w.snapshot(t)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed: %s -> %s", p, h, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
	if _, err := os.Stat(filepath.Join("/dev/shm", w.marker)); err == nil {
		_ = os.Remove(filepath.Join("/dev/shm", w.marker))
		t.Error("the candidate left a file in the host's /dev/shm")
	}
	badinput.WaitGone(t, w.marker, time.Minute) // room for a loaded machine
	if n := w.got.Load(); n > 0 {
		t.Errorf("the host's listeners accepted %d connections", n)
	}
	for _, c := range w.canaries {
		if strings.Contains(text, c) {
			t.Errorf("the report holds the secret %s", c)
		}
		if strings.Contains(logs, c) {
			t.Errorf("fixloop's log holds the secret %s", c)
		}
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("fixloop-*-%d-*", fixloopPID)))
	if len(left) > 0 {
		t.Errorf("the run left %q", left)
	}
}

// TestAttacksWorkUnconfined: the same candidates, run as root with
// `sandbox: none`, do what they claim (read the key, reach the listeners,
// write to /dev/shm), so that the suite tests the sandbox and not broken
// attacks. The destructive ones are not run this way.
func TestAttacksWorkUnconfined(t *testing.T) {
	us := users(t)
	bin := binary(t)
	for _, lang := range []string{"go", "python"} {
		for _, name := range []string{"steal-secrets", "connect-listeners", "write-shm-and-home"} {
			t.Run(lang+"/"+name, func(t *testing.T) {
				needTools(t, lang)
				src := candidates[name].src(lang)
				w := newWorld(t, lang, 0)
				res, _, _ := w.run(t, bin, us[0], job{Lang: lang, File: candidateFile(w, lang), Source: w.source(src), Unconfined: true})
				if res.Report == nil {
					t.Fatalf("no report: %s", res.Err)
				}
				text, _ := json.Marshal(res.Report)
				var want bool
				switch name {
				case "steal-secrets":
					want = bytes.Contains(text, []byte(w.canaries[0]))
				case "connect-listeners":
					want = w.got.Load() == 2
				case "write-shm-and-home":
					_, err := os.Stat(filepath.Join("/dev/shm", w.marker))
					want = err == nil
					_ = os.Remove(filepath.Join("/dev/shm", w.marker))
				}
				if !want {
					t.Errorf("unconfined, the attack did not work; report:\n%s", text)
				}

			})
		}
	}
}
