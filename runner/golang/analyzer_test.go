package golang

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestGoExampleAlerts(t *testing.T) {
	a := sharedAnalyzer(t)
	file := testdataFile(t, "goexample", "shapes.go")
	res := analyze(t, a, file, nil)

	if res.Package != "example.com/goexample" || res.Dir != filepath.Dir(file) {
		t.Errorf("Package, Dir = %q, %q", res.Package, res.Dir)
	}
	wantFiles := []string{file, testdataFile(t, "goexample", "shapes_test.go")}
	if !slices.Equal(res.Files, wantFiles) {
		t.Errorf("Files = %v, want %v", res.Files, wantFiles)
	}

	tests := []struct {
		source, code string
		line         int
		severity     runner.Severity
		category     runner.Category
		url          string
	}{
		// vet's printf and staticcheck's SA5009 report one problem, as one
		// alert (see mergeDuplicates).
		{"vet", "printf", 57, runner.SeverityWarning, runner.CategoryErrorProne, "https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/printf"},
		{"staticcheck", "S1002", 40, runner.SeverityInformation, runner.CategoryRefactor, "https://staticcheck.dev/docs/checks/#S1002"},
		{"staticcheck", "ST1005", 43, runner.SeverityInformation, runner.CategoryStyle, "https://staticcheck.dev/docs/checks/#ST1005"},
		{"staticcheck", "S1039", 48, runner.SeverityInformation, runner.CategoryRefactor, "https://staticcheck.dev/docs/checks/#S1039"},
		{"staticcheck", "S1003", 49, runner.SeverityInformation, runner.CategoryRefactor, "https://staticcheck.dev/docs/checks/#S1003"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			i := slices.IndexFunc(res.Alerts, func(al runner.Alert) bool { return al.Source == tt.source && al.Code == tt.code })
			if i < 0 {
				t.Fatalf("no %s %s alert; got %v", tt.source, tt.code, keys(res.Alerts))
			}
			al := res.Alerts[i]
			if al.File != file || al.Line != tt.line || al.Severity != tt.severity || al.Category != tt.category || al.URL != tt.url {
				t.Errorf("got %s (%s, %s), want line %d, %s, %s, %s", alertString(al), al.Category, al.URL, tt.line, tt.severity, tt.category, tt.url)
			}
		})
	}

	// Nothing else: ST1005 reports twice (capital letter, final period).
	want := sortedKeys(
		alertKey{"shapes.go", 40, "staticcheck", "S1002"},
		alertKey{"shapes.go", 43, "staticcheck", "ST1005"},
		alertKey{"shapes.go", 43, "staticcheck", "ST1005"},
		alertKey{"shapes.go", 48, "staticcheck", "S1039"},
		alertKey{"shapes.go", 49, "staticcheck", "S1003"},
		alertKey{"shapes.go", 57, "vet", "printf"},
	)
	if got := keys(res.Alerts); !slices.Equal(got, want) {
		t.Errorf("alerts:\n got %v\nwant %v", got, want)
	}
}

func TestGoExampleFixes(t *testing.T) {
	a := sharedAnalyzer(t)
	file := testdataFile(t, "goexample", "shapes.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := analyze(t, a, file, nil)

	tests := []struct {
		code     string
		line     int
		wantLine string
	}{
		{"S1002", 40, "\tif ok {"},
		{"S1039", 48, "\tlabel := \"rect\""},
		{"S1003", 49, "\tif strings.Contains(label, \"re\") {"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			i := slices.IndexFunc(res.Alerts, func(al runner.Alert) bool { return al.Code == tt.code })
			if i < 0 {
				t.Fatalf("no %s alert", tt.code)
			}
			al := res.Alerts[i]
			if len(al.Fixes) == 0 {
				t.Fatalf("%s has no fixes", alertString(al))
			}
			fix := al.Fixes[0]
			if fix.Title == "" {
				t.Error("fix has no title")
			}
			for _, e := range fix.Edits {
				if e.File != file {
					t.Errorf("edit in %s, want %s", e.File, file)
				}
			}
			fixed := applyFix(t, text, fix)
			if got := line(fixed, tt.line); got != tt.wantLine {
				t.Errorf("line %d after fix %q = %q, want %q", tt.line, fix.Title, got, tt.wantLine)
			}
		})
	}
}

func TestOverlayIsHonoured(t *testing.T) {
	a := sharedAnalyzer(t)
	file := testdataFile(t, "goexample", "shapes.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("fix removes alert", func(t *testing.T) {
		fixed := bytes.Replace(text, []byte("if ok == true {"), []byte("if ok {"), 1)
		res := analyze(t, a, file, map[string][]byte{file: fixed})
		if slices.Contains(codes(res.Alerts), "S1002") {
			t.Errorf("S1002 still reported after the overlay fixed it: %v", keys(res.Alerts))
		}
		if !slices.Contains(codes(res.Alerts), "printf") {
			t.Errorf("printf alert lost: %v", keys(res.Alerts))
		}
	})

	t.Run("type error", func(t *testing.T) {
		broken := bytes.Replace(text, []byte("\ts := r\n"), []byte("\ts := rr\n"), 1)
		res := analyze(t, a, file, map[string][]byte{file: broken})
		i := slices.IndexFunc(res.Alerts, func(al runner.Alert) bool { return al.Source == "compiler" })
		if i < 0 {
			t.Fatalf("no compiler alert: %v", keys(res.Alerts))
		}
		al := res.Alerts[i]
		if al.Line != 62 || al.Column != 7 || al.Severity != runner.SeverityError || al.Code != "" ||
			!strings.Contains(al.Message, "undefined: rr") || al.End-al.Start != 2 {
			t.Errorf("got %s [%d, %d), want an error at 62:7 on rr", alertString(al), al.Start, al.End)
		}
	})

	t.Run("test file", func(t *testing.T) {
		testFile := testdataFile(t, "goexample", "shapes_test.go")
		src, err := os.ReadFile(testFile)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(src, []byte("\n")) + 2
		src = append(src, "\nfunc TestOther(t *testing.T) {\n\tt.Errorf(\"%d\", \"x\")\n}\n"...)
		res := analyze(t, a, file, map[string][]byte{testFile: src})
		if !slices.Contains(keys(res.Alerts), alertKey{"shapes_test.go", n + 1, "vet", "printf"}) {
			t.Errorf("no printf alert in the overlay of shapes_test.go: %v", keys(res.Alerts))
		}
	})
}

func TestBenchPackageAlerts(t *testing.T) {
	a := sharedAnalyzer(t)
	file := testdataFile(t, "benchpkg", "orders.go")
	res := analyze(t, a, file, nil)
	if len(res.Files) != 13 {
		t.Errorf("Files = %d, want 13", len(res.Files))
	}
	want := sortedKeys(
		alertKey{"customer.go", 85, "staticcheck", "QF1003"},
		alertKey{"errors.go", 64, "staticcheck", "S1008"},
		alertKey{"inventory.go", 185, "vet", "copylocks"},
		alertKey{"orders.go", 302, "vet", "printf"},
		alertKey{"pricing.go", 176, "staticcheck", "SA4006"},
		alertKey{"pricing.go", 176, "staticcheck", "SA4017"},
		alertKey{"product.go", 42, "staticcheck", "ST1005"},
		alertKey{"product.go", 42, "staticcheck", "ST1005"},
		alertKey{"product.go", 82, "staticcheck", "SA1019"},
		alertKey{"product.go", 88, "staticcheck", "SA6005"},
		alertKey{"report.go", 110, "staticcheck", "QF1012"},
		alertKey{"report.go", 121, "vet", "printf"},
		alertKey{"report.go", 134, "staticcheck", "S1003"},
		alertKey{"shipping.go", 119, "staticcheck", "QF1012"},
		alertKey{"shipping.go", 120, "staticcheck", "QF1012"},
		alertKey{"shipping.go", 124, "staticcheck", "QF1012"},
		alertKey{"shipping.go", 124, "staticcheck", "S1039"},
		alertKey{"warehouse.go", 60, "staticcheck", "S1011"},
	)
	if got := keys(res.Alerts); !slices.Equal(got, want) {
		t.Errorf("alerts:\n got %v\nwant %v", got, want)
	}
}

// TestNoWrites checks that analysis leaves the user's files alone, even with
// an overlay that differs from the disk.
func TestNoWrites(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go":      "package m\n\nfunc F(ok bool) bool { return ok == true }\n",
		"a_test.go": "package m\n\nfunc g() bool { return F(true) }\n",
	})
	before := dirState(t, dir)
	a := newAnalyzer(t, AnalyzerOptions{})
	file := filepath.Join(dir, "a.go")
	analyze(t, a, file, nil)
	analyze(t, a, file, map[string][]byte{file: []byte("package m\n\nfunc F(ok bool) bool { return !ok }\n")})
	if after := dirState(t, dir); !slices.Equal(before, after) {
		t.Errorf("directory changed:\nbefore %v\nafter  %v", before, after)
	}
}

func dirState(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, path+" "+fi.ModTime().String()+" "+string(text))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
