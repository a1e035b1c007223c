//go:build linux

package cli

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/fulldisk"
	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// TestFixOnAFullDisk is issue 24's case 5 through the built command: the
// state directory (queue and SQLite store) is a small tmpfs. A session
// saved while it has room reaches the store; one finished while it is full
// is not claimed queued: fix prints the result, names the fallback file
// that holds the session and exits 3 (ExitStore); one finished while the
// fallback directory cannot be written either says the session is lost
// and exits 3.
// Once space is freed, the next run saves the kept session with its own:
// every session not reported lost is in the store.
func TestFixOnAFullDisk(t *testing.T) {
	if !fulldisk.Enter(t) {
		return
	}
	bin := fixloopBinary(t)
	state := filepath.Join(t.TempDir(), "state")
	fulldisk.Mount(t, state, 8<<20)
	tmp := filepath.Join(t.TempDir(), "tmp") // the fallback directory's disk
	fulldisk.Mount(t, tmp, 64<<20)
	dir := testtree.Copy(t, filepath.Join("..", "testdata", "calc"))
	file := filepath.Join(dir, "calc.go")
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(original), `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	srv := openaitest.New(t)
	db := filepath.Join(state, "fixloop", "sessions.db")

	fix := func() (int, string, string) {
		t.Helper()
		srv.Add(openaitest.Reply{Content: openaitest.CodeReply("go", fixed)})
		cmd := exec.Command(bin, "fix", "--goal", "refactor", "--rounds", "1", "--provider", "openai", "--model", "m",
			"--base-url", srv.URL, "--api-key-env", "FIXLOOP_FULLDISK_KEY", "--sandbox=none", file)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "TMPDIR="+tmp, "FIXLOOP_FULLDISK_KEY=k")
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
	wantDiff := func(what, out string) {
		t.Helper()
		if !strings.Contains(out, `+	return "hello"`) {
			t.Errorf("%s: the result's diff is not printed:\n%s", what, out)
		}
	}

	// Room: stored.
	if code, out, errOut := fix(); code != ExitOK || storedSessions(t, db) != 1 {
		t.Fatalf("with room: exit %d, %d sessions stored\nstdout: %s\nstderr: %s", code, storedSessions(t, db), out, errOut)
	}

	// Full: the result is printed, the session kept in the fallback
	// directory, which the message names, and the exit status says so.
	free := fulldisk.Fill(t, state)
	code, out, errOut := fix()
	t.Logf("full disk: exit %d, stderr:\n%s", code, errOut)
	wantDiff("full disk", out)
	if code != ExitStore {
		t.Errorf("full disk: exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitStore, out, errOut)
	}
	if strings.Contains(out+errOut, "stays queued") {
		t.Errorf("full disk: a session is claimed queued:\n%s%s", out, errOut)
	}
	kept := regexp.MustCompile(`it is kept in (\S+\.json) instead`).FindStringSubmatch(errOut)
	if kept == nil || !strings.Contains(errOut, "no space left on device") || !strings.Contains(errOut, filepath.Join(state, "fixloop", "queue")) {
		t.Fatalf("full disk: the error does not name the queue, the cause and the file that keeps the session:\n%s", errOut)
	}
	if !strings.HasPrefix(kept[1], tmp) {
		t.Errorf("the session is kept in %s, not under TMPDIR %s", kept[1], tmp)
	}
	if _, err := os.Stat(kept[1]); err != nil {
		t.Errorf("the file said to keep the session: %v", err)
	}

	// The fallback directory unusable too (a file where it should be; a
	// full TMPDIR would stop the candidates' copies first): lost, and said
	// to be.
	blocker := filepath.Join(tmp, fmt.Sprintf("fixloop-queue-fallback-%d", os.Getuid()))
	if err := os.Rename(blocker, blocker+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = fix()
	t.Logf("no fallback: exit %d, stderr:\n%s", code, errOut)
	wantDiff("no fallback", out)
	if code != ExitStore || !strings.Contains(errOut, "the session is lost") || !strings.Contains(errOut, blocker) {
		t.Errorf("no fallback: exit %d, want %d saying the session is lost and naming %s\nstderr: %s", code, ExitStore, blocker, errOut)
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(blocker+".moved", blocker); err != nil {
		t.Fatal(err)
	}

	// Space freed: the next run stores its session and the kept one.
	free()
	if code, out, errOut := fix(); code != ExitOK {
		t.Fatalf("space freed: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := storedSessions(t, db); n != 3 {
		t.Errorf("%d sessions in the store, want 3 (4 runs, 1 reported lost)", n)
	}
	for _, d := range []string{filepath.Join(state, "fixloop", "queue"), tmp} {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".json") {
				t.Errorf("left queued after the store took everything: %s", p)
			}
			return nil
		})
	}
}

// storedSessions counts the sessions in the SQLite store at path.
func storedSessions(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatalf("counting the sessions in %s: %v", path, err)
	}
	return n
}
