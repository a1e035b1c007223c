package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/fixloop/fixloop"

// upper are the top-level folders of the floors above internal/: a package
// under internal/ may depend on none of them, nor on anything below them.
var upper = []string{"runner", "refactor", "handlers", "server", "cli", "editor", "store", "eval", "report", "bench"}

// TestInternalIsTheBottomFloor fails when a package under internal/, or
// one of its tests, depends (directly or not) on a package under runner/,
// refactor/, handlers/, server/, cli/, editor/, store/, eval/, report/ or
// bench/.
func TestInternalIsTheBottomFloor(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// -test adds each package's test variant ("p [p.test]"), whose Deps
	// include what its tests import.
	cmd := exec.Command("go", "list", "-test", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/internal/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		// The test mains ("p.test") add nothing beyond their variants.
		if !strings.HasPrefix(pkg, module+"/internal/") || strings.HasSuffix(pkg, ".test") {
			continue
		}
		checked++
		for _, dep := range fields[1:] {
			if up := upperFloor(dep); up != "" {
				t.Errorf("%s depends on %s (under %s/): internal/ is the bottom floor", pkg, dep, up)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatalf("go list named no package under internal/:\n%s", out)
	}
}

// upperFloor returns the top-level folder of the module that holds dep
// when that folder is one of upper, else "".
func upperFloor(dep string) string {
	// A test variant reads "p [q.test]"; Deps hold plain paths, but be
	// lenient.
	dep, _, _ = strings.Cut(dep, " ")
	rest, ok := strings.CutPrefix(dep, module+"/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	for _, u := range upper {
		if top == u {
			return u
		}
	}
	return ""
}
