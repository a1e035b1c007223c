// Package sandboxtest holds what the tests of confined runs share.
package sandboxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixloop/fixloop/runner/sandbox"
)

// NeedConfinement skips the test where the sandbox cannot confine
// commands (no bubblewrap, no user namespaces), except in CI (CI=true),
// which installs bubblewrap: there the test fails.
func NeedConfinement(t testing.TB) {
	t.Helper()
	if c := sandbox.Probe(); !c.Confined {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must confine commands: %s", c)
		}
		t.Skipf("commands cannot be confined here: %s", c)
	}
}

// HostileProject writes the attack suite's tree below a new temporary
// directory: home, whose .ssh/id_rsa holds sshCanary; victim, a directory
// beside the project (victim/keep.txt); and proj, a Go module whose calc.go
// has a wrong Add and whose TestAdd fails.
func HostileProject(t testing.TB, sshCanary string) (home, proj, victim string) {
	t.Helper()
	base := t.TempDir()
	home, proj, victim = filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "victim")
	for name, text := range map[string]string{
		"home/.ssh/id_rsa":  sshCanary + "\n",
		"victim/keep.txt":   "keep\n",
		"proj/go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"proj/calc.go":      "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"proj/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) is wrong\")\n\t}\n}\n",
	} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, proj, victim
}

// HostileCalc is the attack suite's hostile candidate for HostileProject's
// calc.go, run from Add so that what it prints is part of the failing
// test's output: it reads home's SSH key and the environments of process
// pid and of process 1 through /proc, prints them, and deletes victim.
func HostileCalc(home string, pid int, victim string) string {
	return fmt.Sprintf(hostileCalc, filepath.Join(home, ".ssh", "id_rsa"), pid, victim)
}

const hostileCalc = `package calc

import (
	"fmt"
	"os"
	"strconv"
)

func leak() {
	for _, p := range []string{%[1]q, "/proc/" + strconv.Itoa(%[2]d) + "/environ", "/proc/1/environ"} {
		b, _ := os.ReadFile(p)
		fmt.Printf("%%s: %%s\n", p, b)
	}
	fmt.Println(os.Environ())
	os.RemoveAll(%[3]q)
}

// Add returns the sum of a and b.
func Add(a, b int) int {
	leak()
	return a - b
}
`
