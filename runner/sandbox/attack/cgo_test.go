//go:build linux

package attack

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/fixloop/fixloop/cli"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// The cgo attacks (issue 24): a model's candidate whose cgo preamble
// #includes a host file inside a function body, after a #define that turns
// each of its lines into an error gcc quotes, or #includes /dev/zero. go
// list runs cgo's preprocessor when fixloop loads the candidate's package;
// it must run in the sandbox, where neither file is the host's.

// cgoCandidates are the attacks: the candidate's text (__HOME__ filled
// in) and what the second model request must say of it, so that an attack
// that did nothing does not pass.
var cgoCandidates = map[string]struct{ src, expect string }{
	"cgo-include-host-files": {src: `package p

/*
#define aws_secret_access_key ; char *b =
#define region ; char *c =
#define oauth_token ; char *d =
#define user ; char *e =
void leak(void) {
#include "__HOME__/.aws/credentials"
#include "__HOME__/.config/gh/hosts.yml"
}
*/
import "C"

func Add(a, b int) int {
	C.leak()
	return a + b
}
`, expect: "No such file or directory"},
	"cgo-include-dev-zero": {src: `package p

/*
void fill(void) {
#include "/dev/zero"
}
*/
import "C"

func Add(a, b int) int {
	C.fill()
	return a + b
}
`, expect: "memory"},
}

// buggyAdd is the user's file the sessions repair: its test fails.
const buggyAdd = "package p\n\nfunc Add(a, b int) int { return a - b }\n"

// fixedAdd is the model's second answer.
const fixedAdd = "package p\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a + b }\n"

// fixJob is a `fixloop fix` session the job process runs (cli.Main) with
// its own store, record and log, against the test's scripted model.
type fixJob struct {
	Args []string
	Env  []string // set in the job's environment first
}

// cgoWorld adds to a Go world the host files the cgo attacks include: AWS
// credentials and the GitHub CLI's hosts file, each with canaries. The
// credentials' values may be redacted where fixloop finds them; the hosts
// file's token and user name only the sandbox keeps in: the user name
// (the fourth canary) no redaction would touch.
func cgoWorld(t *testing.T, uid int) (*world, []string) {
	t.Helper()
	w := newWorld(t, "go", uid)
	id := strings.TrimPrefix(w.marker, "30.0")
	canaries := []string{"CANARY-AWS-SECRET-" + id, "CANARY-AWS-REGION-" + id, "gho_CANARYGHTOKEN" + id, "CANARY-GHUSER-" + id}
	files := map[string]string{
		"home/.aws/credentials":     "[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = " + canaries[0] + "\nregion = " + canaries[1] + "\n",
		"home/.config/gh/hosts.yml": "github.com:\n    oauth_token: " + canaries[2] + "\n    user: " + canaries[3] + "\n",
		"proj/p.go":                 buggyAdd,
	}
	for name, text := range files {
		p := filepath.Join(w.base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if uid != 0 {
		chownAll(t, w.base, uid)
	}
	return w, append(canaries, w.canaries...)
}

// fixResult is what a fix job prints.
type fixResult struct {
	Code           int
	Stdout, Stderr string
	PeakRSS        int64
	// HostCC1 counts the cc1 processes seen running as the job's
	// descendants in its own pid namespace, that is, outside the sandbox.
	HostCC1 int64
}

// runFix runs a fix job in this process (see TestMain).
func runFix(j fixJob) fixResult {
	for _, kv := range j.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	stop := make(chan struct{})
	var host atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); watchCC1(stop, &host) }()
	var stdout, stderr bytes.Buffer
	code := cli.Main(j.Args, strings.NewReader(""), &stdout, &stderr)
	close(stop)
	wg.Wait()
	return fixResult{Code: code, Stdout: stdout.String(), Stderr: stderr.String(), PeakRSS: peakRSS(), HostCC1: host.Load()}
}

// watchCC1 looks every 20 ms, until stop, for cc1 processes that descend
// from this process in its own pid namespace, and counts them in n.
func watchCC1(stop <-chan struct{}, n *atomic.Int64) {
	self := os.Getpid()
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		n.Store(-1)
		return
	}
	seen := map[int]bool{}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		parents := map[int]int{}
		var cc1 []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			i := bytes.LastIndexByte(stat, ')')
			j := bytes.IndexByte(stat, '(')
			if i < 0 || j < 0 {
				continue
			}
			fields := strings.Fields(string(stat[i+1:]))
			if len(fields) < 2 {
				continue
			}
			parents[pid], _ = strconv.Atoi(fields[1])
			if string(stat[j+1:i]) == "cc1" {
				cc1 = append(cc1, pid)
			}
		}
		for _, pid := range cc1 {
			if seen[pid] {
				continue
			}
			descends := false
			for p, hops := parents[pid], 0; p > 1 && hops < 64; p, hops = parents[p], hops+1 {
				if p == self {
					descends = true
					break
				}
			}
			if !descends {
				continue
			}
			if theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid)); err == nil && theirs == ns {
				seen[pid] = true
				n.Add(1)
			}
		}
	}
}

// runFixJob runs j as u in a fixloop process, as w.run does a test job.
func (w *world) runFixJob(t *testing.T, bin string, u asUser, j fixJob) (fixResult, int) {
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
		"XDG_STATE_HOME=" + filepath.Join(w.base, "state"), "XDG_CONFIG_HOME=" + filepath.Join(w.base, "config"),
		fixJobEnv + "=" + string(spec),
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
	var res fixResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("reading the job's result: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	res.Stderr += stderr.String()
	return res, cmd.Process.Pid
}

// cgoSession runs a fix session on the world's p.go whose model answers
// first with src, then with the fixed file, and returns the job's result,
// the model's requests and the sinks a secret must not reach.
func cgoSession(t *testing.T, w *world, bin string, u asUser, src string, sandboxFlag []string) (fixResult, []openaitest.Request, map[string]string, int) {
	t.Helper()
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", src)},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixedAdd)},
	)
	record, dsn, logFile := filepath.Join(w.base, "session.json"), filepath.Join(w.base, "sessions.db"), filepath.Join(w.base, "fixloop.log")
	args := append([]string{"fix", "--json", "--provider", "openai", "--model", "m", "--base-url", srv.URL, "--rounds", "2",
		"--api-key-env", "LLM_KEY", "--record", record, "--store", dsn, "--log-file", logFile, "--log-level", "debug"}, sandboxFlag...)
	args = append(args, filepath.Join(w.proj, "p.go"))
	res, pid := w.runFixJob(t, bin, u, fixJob{Args: args})
	reqs := srv.Requests()
	rec, _ := os.ReadFile(record)
	log, _ := os.ReadFile(logFile)
	sinks := map[string]string{"the record": string(rec), "the log": string(log), "stdout": res.Stdout, "stderr": res.Stderr}
	for i, r := range reqs {
		sinks[fmt.Sprintf("model request %d", i+1)] = string(r.Body)
	}
	if db, err := sql.Open("sqlite", dsn); err == nil {
		defer db.Close()
		if rows, err := db.Query("SELECT record_json FROM sessions"); err == nil {
			for rows.Next() {
				var r string
				if rows.Scan(&r) == nil {
					sinks["the store"] += r
				}
			}
			rows.Close()
		}
	}
	return res, reqs, sinks, pid
}

// TestCgoAttacks runs each cgo attack as a model's first answer in a real
// fix session (the second answer repairs the file), with fixloop as root
// and as nobody, and checks that the session ends, that nothing of the
// included host files reaches a model request, the record, the store or
// the log, that no cc1 ran outside the sandbox, that fixloop's own peak
// memory stays bounded, and that nothing outside the copy changed.
func TestCgoAttacks(t *testing.T) {
	us := users(t)
	bin := binary(t)
	for _, u := range us {
		for name, c := range cgoCandidates {
			t.Run(u.name+"/"+name, func(t *testing.T) {
				needTools(t, "go")
				if _, err := exec.LookPath("gcc"); err != nil {
					t.Skip("no gcc: cgo cannot run")
				}
				w, canaries := cgoWorld(t, u.uid)
				before := w.snapshot(t)
				res, reqs, sinks, pid := cgoSession(t, w, bin, u, w.source(c.src), nil)
				if res.Code != cli.ExitOK {
					t.Fatalf("fix exited %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
				}
				if len(reqs) != 2 {
					t.Fatalf("%d model requests, want 2\nstderr:\n%s", len(reqs), res.Stderr)
				}
				if i := strings.Index(string(reqs[1].Body), c.expect); i < 0 {
					t.Errorf("the second model request does not say %q: the attack did not do its part:\n%s", c.expect, reqs[1].Body)
				} else {
					t.Logf("the second model request says: ...%s...", reqs[1].Body[max(i-200, 0):min(i+100, len(reqs[1].Body))])
				}
				// The Go analysis loaded the baseline and, confined, the
				// candidate (a load that failed would leave it unanalysed,
				// a note the session drops, and log no full load).
				if n := strings.Count(sinks["the log"], `msg="full load" `); n < 2 {
					t.Errorf("the log shows %d full loads of the Go analysis, want the baseline's and the candidate's:\n%s", n, sinks["the log"])
				}
				if sinks["the store"] == "" {
					t.Error("nothing in the store")
				}
				for where, text := range sinks {
					for _, s := range canaries {
						if strings.Contains(text, s) {
							t.Errorf("%s holds the secret %s", where, s)
						}
					}
				}
				switch {
				case res.HostCC1 < 0:
					t.Error("the job could not tell its pid namespace")
				case res.HostCC1 > 0:
					t.Errorf("%d cc1 processes ran in fixloop's own pid namespace", res.HostCC1)
				}
				switch {
				case res.PeakRSS == 0:
					t.Error("the job could not tell its peak memory (VmHWM)")
				case res.PeakRSS > maxFixloopRSS:
					t.Errorf("fixloop's own peak memory was %d MiB, over %d MiB", res.PeakRSS>>20, maxFixloopRSS>>20)
				default:
					t.Logf("fixloop's own peak memory: %d MiB", res.PeakRSS>>20)
				}
				after := w.snapshot(t)
				for p, h := range before {
					if after[p] != h {
						t.Errorf("%s changed: %s -> %s", p, h, after[p])
					}
				}
				if left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("fixloop-*-%d-*", pid))); len(left) > 0 {
					t.Errorf("the run left %q", left)
				}
			})
		}
	}
}

// TestCgoAttacksWorkInProcess: the host-file attack, as the user's own
// file on disk, which `fixloop check` loads in its own process (go list
// unconfined, as every load was before issue 24), quotes the host files
// in its output, so that the suite tests the sandbox and not a broken
// attack.
func TestCgoAttacksWorkInProcess(t *testing.T) {
	us := users(t)
	bin := binary(t)
	needTools(t, "go")
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc: cgo cannot run")
	}
	w, canaries := cgoWorld(t, 0)
	file := filepath.Join(w.proj, "p.go")
	if err := os.WriteFile(file, []byte(w.source(cgoCandidates["cgo-include-host-files"].src)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := w.runFixJob(t, bin, us[0], fixJob{Args: []string{"check", file}})
	// A user name is no secret by any rule: redaction leaves it.
	if !strings.Contains(res.Stdout+res.Stderr, canaries[3]) {
		t.Errorf("in process, the attack did not quote the host file:\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}
}

// TestWatchCC1: the watch TestCgoAttacks relies on sees a process named
// cc1 that this process starts in its own pid namespace.
func TestWatchCC1(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	cc1 := filepath.Join(t.TempDir(), "cc1")
	if err := os.WriteFile(cc1, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cc1, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	stop := make(chan struct{})
	var n atomic.Int64
	done := make(chan struct{})
	go func() { defer close(done); watchCC1(stop, &n) }()
	for n.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	<-done
	if got := n.Load(); got != 1 {
		t.Errorf("the watch counted %d cc1 processes, want 1", got)
	}
}
