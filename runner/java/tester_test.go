package java

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

// roomy is the timeout of runs that must finish (it bounds the whole run,
// the build included, in wall-clock time): room for a loaded machine
// (issue 23).
const roomy = 5 * time.Minute

// gib is the memory limit the tests give the test JVM: the LintEval
// default, which the JVM must start under.
const gib = int64(1) << 30

func TestTesterExample(t *testing.T) {
	t.Parallel()
	needJUnit(t)
	dir := exampleDir(t)
	before := snapshot(t, dir)
	tester := NewTester(TesterOptions{MemoryLimit: gib})
	rep, err := tester.Test(context.Background(), exampleMain(t), nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, dir, before)
	if rep.Passed != 3 || rep.Failed != 1 || rep.Total != 4 || rep.BuildFailed || rep.TimedOut || rep.Package != dir {
		t.Fatalf("report %+v, want 3 passed and 1 failed in %s\n%s", rep, dir, rep.Output)
	}
	slices.Sort(rep.PassedTests)
	if want := []string{"example.StatsTest.meanDividesByCount", "example.StatsTest.sumAddsAllValues", "example.StatsTest.toCentsMultipliesByHundred"}; !slices.Equal(rep.PassedTests, want) {
		t.Errorf("passed %v, want %v", rep.PassedTests, want)
	}
	f := rep.Failures[0]
	if f.Test != "example.StatsTest.maxFindsLargestNegative" || f.File != exampleTest(t) || f.Line != 27 || f.Kind != runner.FailureWrongAnswer {
		t.Errorf("failure %s at %s:%d (%s), want example.StatsTest.maxFindsLargestNegative at %s:27", f.Test, f.File, f.Line, f.Kind, exampleTest(t))
	}
	if !strings.Contains(f.Message, "expected: <-1> but was: <0>") || !strings.Contains(f.Message, "at example.StatsTest.maxFindsLargestNegative(StatsTest.java:27)") ||
		strings.Contains(f.Message, "org.junit.") {
		t.Errorf("failure message:\n%s", f.Message)
	}

	// The same tree again: the cached report.
	again, err := tester.Test(context.Background(), exampleTest(t), nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if again.Duration != rep.Duration || again.Passed != 3 {
		t.Errorf("second run %+v, want the cached report", again)
	}
	tester.Invalidate(filepath.Join(dir, "src"))
	if tester.cache.Len() != 0 {
		t.Error("Invalidate kept the report")
	}
}

func TestTesterOverlay(t *testing.T) {
	t.Parallel()
	needJUnit(t)
	dir := exampleDir(t)
	before := snapshot(t, dir)
	file := exampleMain(t)
	fixed := strings.Replace(string(before[file]), "int best = 0;", "int best = values[0];", 1)
	broken := strings.Replace(string(before[file]), "return total;", "return totl;", 1)
	tests := []struct {
		name   string
		text   string
		passed int
		build  bool
	}{
		{"fixed", fixed, 4, false},
		{"broken", broken, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := NewTester(TesterOptions{}).Test(context.Background(), exampleTest(t), map[string][]byte{file: []byte(tt.text)}, roomy)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Passed != tt.passed || rep.Failed != 0 || rep.BuildFailed != tt.build {
				t.Fatalf("report %+v\n%s", rep, rep.Output)
			}
			if tt.build {
				if len(rep.BuildErrors) != 1 {
					t.Fatalf("build errors %+v, want one", rep.BuildErrors)
				}
				a := rep.BuildErrors[0]
				if a.File != file || a.Line != 24 || tt.text[a.Start:a.End] != "totl" || !strings.HasPrefix(a.Message, "cannot find symbol") {
					t.Errorf("build error %+v, want cannot find symbol at totl in %s:24", a, file)
				}
			}
		})
	}
	t.Cleanup(func() { checkUnchanged(t, dir, before) })
}

// TestTesterLimits runs tests that loop and that allocate too much.
func TestTesterLimits(t *testing.T) {
	t.Parallel()
	needJUnit(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".fixloop.yaml": "",
		"limits/LoopTest.java": `package limits;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@TestMethodOrder(MethodOrderer.MethodName.class)
class LoopTest {
    @Test
    void aPasses() {
    }

    @Test
    void bLoops() {
        while (true) {
            Thread.onSpinWait();
        }
    }
}
`,
		"memory/HogTest.java": `package memory;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HogTest {
    @Test
    void hogs() {
        List<long[]> keep = new ArrayList<>();
        while (true) {
            keep.add(new long[8 << 20]);
        }
    }
}
`,
	})
	t.Run("time", func(t *testing.T) {
		t.Parallel()
		overlay := map[string][]byte{filepath.Join(dir, "memory", "HogTest.java"): []byte("package memory;\n")}
		// 6 s of CPU time for javac and the tests together: bLoops spins
		// until the run has used them.
		rep, err := NewTester(TesterOptions{}).Test(context.Background(), filepath.Join(dir, "limits", "LoopTest.java"), overlay, 6*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.TimedOut || rep.Failed != 1 || rep.Failures[0].Test != "limits.LoopTest.bLoops" || rep.Failures[0].Kind != runner.FailureTimeLimit {
			t.Fatalf("report %+v, want bLoops timed out\n%s", rep, rep.Output)
		}
		if !slices.Equal(rep.PassedTests, []string{"limits.LoopTest.aPasses"}) {
			t.Errorf("passed %v, want aPasses", rep.PassedTests)
		}
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		overlay := map[string][]byte{filepath.Join(dir, "limits", "LoopTest.java"): []byte("package limits;\n")}
		rep, err := NewTester(TesterOptions{MemoryLimit: gib}).Test(context.Background(), filepath.Join(dir, "memory", "HogTest.java"), overlay, roomy)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failed != 1 || rep.Failures[0].Test != "memory.HogTest.hogs" || rep.Failures[0].Kind != runner.FailureMemoryLimit ||
			!strings.Contains(rep.Failures[0].Message, "OutOfMemoryError") || rep.Failures[0].Line != 12 {
			t.Fatalf("report %+v, want hogs out of memory at line 12\n%s", rep, rep.Output)
		}
	})
}

func TestTesterNoTests(t *testing.T) {
	t.Parallel()
	needJUnit(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"app/Main.java": "package app;\n\npublic class Main {\n    public static void main(String[] args) {\n    }\n}\n",
	})
	rep, err := NewTester(TesterOptions{}).Test(context.Background(), filepath.Join(dir, "app", "Main.java"), nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != 0 || !rep.OK() || rep.Package != dir {
		t.Errorf("report %+v, want no tests in %s", rep, dir)
	}
}

func TestTesterMissingTools(t *testing.T) {
	needCommands(t, "javac", "java")
	file := exampleMain(t)
	_, err := NewTester(TesterOptions{JUnitJar: "/nonexistent/junit.jar"}).Test(context.Background(), file, nil, roomy)
	if !tool.IsMissing(err) || !strings.Contains(err.Error(), "apt install junit5") {
		t.Errorf("error %v, want a missing junit5", err)
	}
	t.Setenv("PATH", pathWithout(t, "javac"))
	_, err = NewTester(TesterOptions{}).Test(context.Background(), file, nil, roomy)
	if !tool.IsMissing(err) || !strings.Contains(err.Error(), "javac") {
		t.Errorf("error %v, want a missing javac", err)
	}
}
