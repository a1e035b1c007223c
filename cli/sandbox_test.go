package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// fixloopBinary builds fixloop: the sandbox's facts are probed once per
// process, so a machine without bubblewrap is a process of its own.
func fixloopBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fixloop")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runWithoutBwrap runs fixloop as on a machine without bubblewrap.
func runWithoutBwrap(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "FIXLOOP_BWRAP="+filepath.Join(t.TempDir(), "no-bwrap"), "FIXLOOP_NOSANDBOX_TEST_KEY=k")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestNoSandboxNoCandidates: where bubblewrap cannot run, check --tools
// says so and names the package; a model's session is refused with that
// message before the model is asked anything, unless --sandbox=none; the
// offline rules provider still runs.
func TestNoSandboxNoCandidates(t *testing.T) {
	bin := fixloopBinary(t)

	_, out, _ := runWithoutBwrap(t, bin, "check", "--tools")
	if !strings.Contains(out, "bubblewrap is not installed") || !strings.Contains(out, "apt install bubblewrap") {
		t.Errorf("check --tools does not say that the sandbox is missing:\n%s", out)
	}

	dir := testtree.Copy(t, filepath.Join("..", "testdata", "calc"))
	file := filepath.Join(dir, "calc.go")
	original, _ := os.ReadFile(file)
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", string(original))})
	model := []string{"fix", "--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-env", "FIXLOOP_NOSANDBOX_TEST_KEY", "--store", "off"}

	code, _, errOut := runWithoutBwrap(t, bin, append(model, file)...)
	if code != ExitUsage || !strings.Contains(errOut, "refusing to run the model's candidates") ||
		!strings.Contains(errOut, "bubblewrap is not installed") || !strings.Contains(errOut, "--sandbox=none") {
		t.Errorf("exit %d, stderr %q; want exit %d refusing, naming bubblewrap and --sandbox=none", code, errOut, ExitUsage)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times before the refusal", n)
	}

	code, _, errOut = runWithoutBwrap(t, bin, append(model, "--sandbox=none", file)...)
	if code == ExitUsage || len(srv.Requests()) == 0 {
		t.Errorf("--sandbox=none: exit %d, %d requests; stderr %q", code, len(srv.Requests()), errOut)
	}

	code, _, errOut = runWithoutBwrap(t, bin, "fix", "--provider", "rules", "--store", "off", file)
	if code != ExitOK {
		t.Errorf("rules provider without bubblewrap: exit %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, original) {
		t.Error("the file was written")
	}
}

// TestServeSweepsLeftovers: a server killed (kill -9) mid-session leaves
// its candidates' copies and tools' scratch, of every prefix; the next
// `fixloop serve` removes them all at start.
func TestServeSweepsLeftovers(t *testing.T) {
	bin := fixloopBinary(t)
	tmp := t.TempDir()
	// A server that was killed: its pid is in the copies' names.
	victim := exec.Command(bin, "serve")
	victim.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdin, err := victim.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	// What it was making when it died: one of every prefix fixloop makes
	// in the temporary directory (issue 24: fixloop-pytool-* stayed).
	var lefts []string
	for _, prefix := range sandbox.TempPrefixes {
		left := filepath.Join(tmp, fmt.Sprintf("%s%d-123", prefix, victim.Process.Pid))
		var err error
		if prefix == sandbox.PrefixStdin {
			err = os.WriteFile(left, []byte("input"), 0o600)
		} else {
			err = os.MkdirAll(filepath.Join(left, "sandbox", "m"), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
		lefts = append(lefts, left)
	}
	_ = victim.Process.Kill() // SIGKILL: it removes nothing
	_ = victim.Wait()
	stdin.Close()

	next := exec.Command(bin, "serve")
	next.Env = append(os.Environ(), "TMPDIR="+tmp)
	var errOut bytes.Buffer
	next.Stderr = &errOut
	next.Stdin = strings.NewReader("") // the client goes away at once
	_ = next.Run()
	for _, left := range lefts {
		if _, err := os.Stat(left); err == nil {
			t.Errorf("%s is still there after the next start; log:\n%s", left, errOut.String())
		}
	}
	if !strings.Contains(errOut.String(), "removed what killed servers left") {
		t.Errorf("the log does not say what was removed:\n%s", errOut.String())
	}
}

// TestServeTakesTheClientsArguments: vscode-languageclient starts the
// server with --stdio and --clientProcessId=N; fixloop takes both, and
// exits once the client process is gone.
func TestServeTakesTheClientsArguments(t *testing.T) {
	bin := fixloopBinary(t)
	client := exec.Command("sleep", "60")
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Process.Kill(); _ = client.Wait() }()
	srv := exec.Command(bin, "serve", "--stdio", fmt.Sprintf("--clientProcessId=%d", client.Process.Pid))
	stdin, _ := srv.StdinPipe() // held open: only the client's death ends the server
	defer stdin.Close()
	var errOut bytes.Buffer
	srv.Stderr = &errOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the server exited while its client lives: %v\n%s", err, errOut.String())
	case <-time.After(1500 * time.Millisecond):
	}
	_ = client.Process.Kill()
	_ = client.Wait()
	select {
	case <-exited:
		if !strings.Contains(errOut.String(), "the client process is gone") {
			t.Errorf("the log does not say why it stopped:\n%s", errOut.String())
		}
	case <-time.After(time.Minute): // must happen; room for a loaded machine
		_ = srv.Process.Kill()
		t.Fatalf("the server still runs a minute after its client died\n%s", errOut.String())
	}
}
