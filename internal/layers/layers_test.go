package layers

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/fixloop/fixloop"

// upper are the top-level folders of the floors above internal/: a package
// under internal/ may depend on none of them, nor on anything below them.
var upper = []string{"runner", "refactor", "handlers", "mcpserver", "toolset", "server", "cli", "editor", "store", "eval", "report", "bench"}

// TestInternalIsTheBottomFloor fails when a package under internal/, or
// one of its tests, depends (directly or not) on a package under runner/,
// refactor/, handlers/, toolset/, server/, cli/, editor/, store/, eval/,
// report/ or bench/.
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

// floors are the top-level folders of the module by floor, top first ("" is
// the root package, main.go). A package imports only from its own folder
// and from the floors below its own: nothing imports upward, and folders on
// one floor do not import each other.
var floors = [][]string{
	{""},
	{"cli", "bench"},
	{"server"},
	{"handlers", "mcpserver"},
	{"toolset"},
	{"editor"},
	{"store", "eval", "report"},
	{"refactor"},
	{"runner"},
	{"internal"},
}

// floorOf returns the floor (0 at the top) of the folder top, -1 when no
// floor holds it.
func floorOf(top string) int {
	for i, f := range floors {
		for _, name := range f {
			if name == top {
				return i
			}
		}
	}
	return -1
}

// topFolder returns the top-level folder of the module that holds pkg ("" for
// the root package) and whether pkg is the module's at all.
func topFolder(pkg string) (string, bool) {
	if pkg == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return "", false
	}
	top, _, _ := strings.Cut(rest, "/")
	return top, true
}

// goList runs go list -f format over patterns and returns its lines, split
// into fields.
func goList(t *testing.T, format string, patterns ...string) [][]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", append([]string{"list", "-f", format}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var lines [][]string
	for _, line := range strings.Split(string(out), "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines = append(lines, fields)
		}
	}
	return lines
}

// TestFloors fails when a package of the module imports (in its code, not
// its tests) a package of another folder on its own floor or a floor above,
// or lives in a top-level folder no floor holds. So server -> handlers ->
// toolset -> {editor, refactor, runner}, and nothing below imports server,
// handlers, toolset or cli.
func TestFloors(t *testing.T) {
	lines := goList(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...")
	for _, fields := range lines {
		pkg := fields[0]
		top, ok := topFolder(pkg)
		if !ok {
			continue
		}
		floor := floorOf(top)
		if floor < 0 {
			t.Errorf("%s is in %s/, which no floor holds: add the folder to floors (and to docs/architecture.md)", pkg, top)
			continue
		}
		for _, dep := range fields[1:] {
			depTop, ok := topFolder(dep)
			if !ok || depTop == top {
				continue
			}
			if depFloor := floorOf(depTop); depFloor >= 0 && depFloor <= floor {
				t.Errorf("%s imports %s: %s is not on a floor below %s", pkg, dep, folderName(depTop), folderName(top))
			}
		}
	}
	if len(lines) < 10 {
		t.Fatalf("go list named %d packages, want the module's", len(lines))
	}
}

func folderName(top string) string {
	if top == "" {
		return "the root package"
	}
	return top + "/"
}

// TestCLIImportsServerOnlyInServe fails when a file of cli other than
// serve.go (tests aside) imports the LSP connection, server or a package
// under it: the other commands get their tools from toolset.
func TestCLIImportsServerOnlyInServe(t *testing.T) {
	lines := goList(t, `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, module+"/cli")
	if len(lines) != 1 || len(lines[0]) < 2 {
		t.Fatalf("go list named no files of cli: %v", lines)
	}
	dir, files := lines[0][0], lines[0][1:]
	fset := token.NewFileSet()
	sawServe := false
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if path != module+"/server" && !strings.HasPrefix(path, module+"/server/") {
				continue
			}
			if name == "serve.go" {
				sawServe = true
				continue
			}
			t.Errorf("cli/%s imports %s: only cli/serve.go may import the connection; use toolset", name, path)
		}
	}
	if !sawServe {
		t.Errorf("cli/serve.go does not import %s/server: is this test still looking at the right files?", module)
	}
}

// languagePackages are the runner packages handlers may not import: the
// languages, the judge, the taxonomy and the sandbox (and the packages
// under them). handlers asks toolset (or runner/langs) instead.
var languagePackages = []string{"python", "java", "cpp", "golang", "judge", "taxonomy", "sandbox"}

// TestHandlersReachLanguagesThroughToolset fails when a package of
// handlers imports (in its code) one of languagePackages.
func TestHandlersReachLanguagesThroughToolset(t *testing.T) {
	lines := goList(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/handlers/...")
	if len(lines) == 0 {
		t.Fatal("go list named no package of handlers")
	}
	for _, fields := range lines {
		for _, dep := range fields[1:] {
			for _, lang := range languagePackages {
				p := module + "/runner/" + lang
				if dep == p || strings.HasPrefix(dep, p+"/") {
					t.Errorf("%s imports %s: handlers reaches the languages only through toolset", fields[0], dep)
				}
			}
		}
	}
}
