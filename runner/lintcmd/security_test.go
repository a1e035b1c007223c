package lintcmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFileNameIsNotShellCode: a file named like a command substitution,
// put into a `sh -c` script through ${file}, stays a file name.
func TestFileNameIsNotShellCode(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	file := filepath.Join(dir, "x$(touch pwned).sh")
	if err := os.WriteFile(file, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := New(Spec{
		Name: "wc", Command: []string{"sh", "-c", "cd " + "${dir}" + " && cat ${file} | wc -l"},
		Extensions: []string{".sh"}, Input: InputFile, Errorformat: []string{"%f:%l: %m"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lint(t.Context(), file, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the file name ran as shell code (%s exists)", marker)
	}
}
