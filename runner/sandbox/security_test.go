//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWorkdirOverlayNeverFollowsSymlinks: an overlaid file that is a
// symlink in the project (a linked shared module) is replaced in the copy;
// the unsaved text never reaches the link's target.
func TestWorkdirOverlayNeverFollowsSymlinks(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "util.py")
	if err := os.WriteFile(shared, []byte("ORIGINAL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	if err := os.Symlink(shared, filepath.Join(proj, "util.py")); err != nil {
		t.Fatal(err)
	}
	dst, cleanup, err := Workdir(t.Context(), proj, map[string][]byte{filepath.Join(proj, "util.py"): []byte("UNSAVED\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if b, _ := os.ReadFile(shared); string(b) != "ORIGINAL\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "util.py")); string(b) != "UNSAVED\n" {
		t.Errorf("the copy holds %q, want the overlay", b)
	}
}

// TestWorkdirKeepsModificationTimes: make compares times; a copy must not
// make an old object file look newer than its source.
func TestWorkdirKeepsModificationTimes(t *testing.T) {
	proj := t.TempDir()
	src := filepath.Join(proj, "a.cc")
	if err := os.WriteFile(src, []byte("int x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(src, old, old); err != nil {
		t.Fatal(err)
	}
	dst, cleanup, err := Workdir(t.Context(), proj, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	st, err := os.Stat(filepath.Join(dst, "a.cc"))
	if err != nil || !st.ModTime().Equal(old) {
		t.Errorf("copy's mtime = %v (%v), want %v", st.ModTime(), err, old)
	}
}

// TestWorkdirSkipsVirtualenvsAndCleansReadOnlyDirs.
func TestWorkdirSkipsVirtualenvsAndCleansReadOnlyDirs(t *testing.T) {
	proj := t.TempDir()
	env := filepath.Join(proj, "env")
	if err := os.MkdirAll(filepath.Join(env, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(env, "pyvenv.cfg"), []byte("home = /usr\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "m.py"), []byte("x = 1\n"), 0o644)
	dst, cleanup, err := Workdir(t.Context(), proj, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "env")); !os.IsNotExist(err) {
		t.Errorf("the virtualenv was copied: %v", err)
	}
	ro := filepath.Join(dst, "cache")
	os.MkdirAll(filepath.Join(ro, "sub"), 0o755)
	os.WriteFile(filepath.Join(ro, "sub", "f"), []byte("x"), 0o644)
	os.Chmod(filepath.Join(ro, "sub"), 0o500)
	os.Chmod(ro, 0o500)
	cleanup()
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("the copy is left behind: %v", err)
	}
}

// TestRunHidesSecrets: programs under test get fixloop's environment by
// allow-list: no API key, whatever its variable's name, no token, nothing
// of the user's own.
func TestRunHidesSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-123")
	t.Setenv("GITHUB_TOKEN", "ghp-secret")
	t.Setenv("LLM_KEY", "llm-secret")
	t.Setenv("FIXLOOP_PLAIN", "not-for-candidates")
	t.Setenv("GOFLAGS", "-mod=mod")
	for _, confined := range []bool{true, false} {
		ctx := t.Context()
		if !confined {
			ctx = Unconfined(ctx)
		}
		res, err := Run(ctx, Cmd{Dir: t.TempDir(), Args: []string{"sh", "-c", "env"}, Limits: Limits{Time: 10 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Stdout, "secret") || strings.Contains(res.Stdout, "not-for-candidates") || !strings.Contains(res.Stdout, "GOFLAGS=-mod=mod") {
			t.Errorf("confined %v: environment seen by the program:\n%s", confined, res.Stdout)
		}
	}
}

func TestAllowedEnv(t *testing.T) {
	env := []string{"PATH=/bin", "HOME=/root", "LLM_KEY=x", "OPENAI_API_KEY=x", "GOFLAGS=-x", "LC_ALL=C",
		"CGO_ENABLED=0", "SSH_AUTH_SOCK=/tmp/s", "AWS_SECRET_ACCESS_KEY=x", "GOPROXY_AUTH_TOKEN=x", "DISPLAY=:0", "JAVA_HOME=/j"}
	got := AllowedEnv(env)
	want := []string{"PATH=/bin", "GOFLAGS=-x", "LC_ALL=C", "CGO_ENABLED=0", "JAVA_HOME=/j"}
	if !slices.Equal(got, want) {
		t.Errorf("AllowedEnv = %q, want %q", got, want)
	}
}
