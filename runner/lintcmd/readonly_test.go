package lintcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// TestCommandCannotWriteProject: a command linter sees the project
// read-only in every input mode (issue 24, case 4: with input file it ran
// in the project's directory, bound read-write, created a file there and
// appended a line to the checked file). It tries to create a file in its
// working directory and in the project's root, to append to the checked
// file and to delete another of the project's files; none of it is done,
// and the private /tmp it may still write (with input tempfile, also its
// working directory, fixloop's temporary one).
func TestCommandCannotWriteProject(t *testing.T) {
	needSh(t)
	sandboxtest.NeedConfinement(t)
	// $1 the project's root, $2 the checked file on disk, $3 ${file}.
	const probe = `report() { printf '%s:1:1: warning: %s\n' "$3" "$1"; }
try() { what=$1; shift; if "$@" 2>/dev/null; then report "did $what" "$R" "$F" "$FILE"; fi; }
R=$1 F=$2 FILE=$3
try "create in cwd" sh -c 'echo pwned > ./created-in-cwd'
try "create in root" sh -c 'echo pwned > "$0/created-in-root"' "$R"
try "append" sh -c 'echo "print(\"pwned\")" >> "$0"' "$F"
try "delete" rm -f "$R/keep.txt"
try "mkdir" mkdir "$R/newdir"
try "tmp" sh -c 'echo ok > /tmp/scratch && test -s /tmp/scratch'
report "ran" "$R" "$F" "$FILE"
exit 1`
	for _, input := range []string{InputStdin, InputFile, InputTempFile} {
		t.Run(input, func(t *testing.T) {
			project := filepath.Join(realDir(t), "project")
			sub := filepath.Join(project, "pkg")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, project, "keep.txt", "keep\n")
			const text = "x = 1\n"
			file := writeFile(t, sub, "stats.py", text)
			before := tree(t, project)
			l := newLinter(t, Spec{
				Name:        "writer",
				Command:     []string{"sh", "-c", probe, "sh", project, file, "${file}"},
				Input:       input,
				Extensions:  []string{".py"},
				Errorformat: gccFormat,
				Root:        project,
			})
			res, err := l.Lint(t.Context(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, a := range res.Alerts {
				msgs = append(msgs, a.Message)
			}
			if !slices.Contains(msgs, "ran") || !slices.Contains(msgs, "did tmp") {
				t.Fatalf("the command did not run to its end, or could not write its /tmp: %q", msgs)
			}
			for _, m := range msgs {
				// With tempfile the working directory is fixloop's
				// temporary one, which the command may write.
				if strings.HasPrefix(m, "did ") && m != "did tmp" && (input != InputTempFile || m != "did create in cwd") {
					t.Errorf("the command %s", strings.TrimPrefix(m, "did "))
				}
			}
			if after := tree(t, project); !slices.Equal(before, after) {
				t.Errorf("the project changed:\nbefore %q\nafter  %q", before, after)
			}
			if got, _ := os.ReadFile(file); string(got) != text {
				t.Errorf("the checked file is now %q, want %q", got, text)
			}
		})
	}
}

// tree lists the files under dir with their contents.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, rel+"="+string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommandCannotWriteProjectAsNobody runs TestCommandCannotWriteProject
// again as nobody (uid 65534), as the attack suite runs fixloop as root and
// as nobody (issue 24): the project stays read-only whoever fixloop runs
// as, and the command may still write its /tmp.
func TestCommandCannotWriteProjectAsNobody(t *testing.T) {
	needSh(t)
	sandboxtest.NeedConfinement(t)
	if os.Getuid() != 0 {
		t.Skip("runs the test as nobody: run it as root (CI does)")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("setpriv (util-linux) is needed to run the test as nobody")
	}
	const nobody = 65534
	// A directory nobody may use: the test binary and nobody's TMPDIR.
	dir, err := os.MkdirTemp("", "fixloop-lintcmd-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "lintcmd.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "setpriv", "--reuid="+strconv.Itoa(nobody), "--regid="+strconv.Itoa(nobody), "--clear-groups",
		bin, "-test.run=^TestCommandCannotWriteProject$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TMPDIR=" + tmp, "LANG=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	for _, input := range []string{InputStdin, InputFile, InputTempFile} {
		if want := "--- PASS: TestCommandCannotWriteProject/" + input; !strings.Contains(string(out), want) {
			t.Errorf("as nobody: no %q in\n%s", want, out)
		}
	}
}
