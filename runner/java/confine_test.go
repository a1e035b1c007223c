//go:build unix

package java

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// TestLintToolsAreConfined: javac and checkstyle run in the sandbox. No
// Java source makes javac print a file it is pointed at (it reads only
// .java and .class files, by package, and fixloop keeps only its errors in
// the checked file), so fakes stand in for both tools: each prints a
// secret outside the project as a finding in the checked file and tries
// to write outside its directory. Neither gets done.
func TestLintToolsAreConfined(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	base := t.TempDir()
	canary := fmt.Sprintf("fixloop-canary-%d", time.Now().UnixNano())
	secret := filepath.Join(base, "home", "secret.txt")
	writeFiles(t, base, map[string]string{"home/secret.txt": canary + "\n"})
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	// Both get the checked copy as their last argument.
	steal := `for a; do f=$a; done
msg=$(cat ` + secret + ` 2>&1 | head -n 1 | tr -d '<>&"')
echo pwned > ` + outside + `/$(basename "$0")
`
	badinput.FakeTools(t, map[string]string{
		"javac": steal + `printf '%s:1: error: %s\n' "$f" "$msg"; echo '1 error'; exit 1`,
		"checkstyle": steal + `echo '<?xml version="1.0" encoding="UTF-8"?>'; echo '<checkstyle version="8.36.1">'
echo "<file name=\"$f\"><error line=\"1\" column=\"1\" severity=\"warning\" message=\"$msg\" source=\"com.puppycrawl.tools.checkstyle.checks.FakeCheck\"/></file>"
echo '</checkstyle>'`,
	})
	file := exampleMain(t)
	res, err := newTestLinter(t, LinterOptions{}).Lint(t.Context(), file, map[string][]byte{file: []byte("package example;\n\nclass Stats {\n}\n")})
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{"compiler", "checkstyle"} {
		i := slices.IndexFunc(res.Alerts, func(a runner.Alert) bool { return a.Source == source })
		switch {
		case i < 0:
			t.Errorf("no %s alert (the fake did not run?): %+v", source, res.Alerts)
		case strings.Contains(res.Alerts[i].Message, canary):
			t.Errorf("%s's alert holds the secret: %q", source, res.Alerts[i].Message)
		case !strings.Contains(res.Alerts[i].Message, "No such file or directory"):
			t.Errorf("%s's alert %q does not say that the secret is not there", source, res.Alerts[i].Message)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("the tools wrote outside their directory: %v", entries)
	}
}

// TestLintPackageDoesNotWidenTheSourcePath: a candidate's package
// declaration chooses the source root javac reads (package a.b.c in
// a/b/c/A.java makes it the directory above a); in a repository, a root
// outside it is not shown to javac, so a candidate cannot make it read the
// user's other trees.
func TestLintPackageDoesNotWidenTheSourcePath(t *testing.T) {
	needCommands(t, "javac")
	sandboxtest.NeedConfinement(t)
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"q/Other.java":        "package q;\n\npublic final class Other {\n    public static int f() {\n        return 1;\n    }\n}\n",
		"w/repo/.git/HEAD":    "ref: refs/heads/main\n",
		"w/repo/src/p/A.java": "package p;\n\nclass A {\n}\n",
	})
	file := filepath.Join(base, "w", "repo", "src", "p", "A.java")
	// package w.repo.src.p makes the source root base, which holds q.
	text := "package w.repo.src.p;\n\nimport q.Other;\n\nclass A {\n    int g() {\n        return Other.f();\n    }\n}\n"
	tree, err := newLintTree("", file, []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tree.dir)
	if !slices.Contains(tree.roots, base) {
		t.Fatalf("source roots %q, want %s: the test proves nothing", tree.roots, base)
	}
	alerts, err := newTestLinter(t, LinterOptions{}).compile(t.Context(), tree)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(alerts, func(a runner.Alert) bool { return strings.Contains(a.Message, "package q does not exist") }) {
		t.Errorf("javac read a source root outside the repository: alerts %+v", alerts)
	}
}

// TestLintWritesClassDataArchives: the first run of each tool, confined
// or not, writes its class-data archive in its own directory, which
// fixloop moves into the cache; the next run reads it (confined, shown
// read-only) and gives the same alerts.
func TestLintWritesClassDataArchives(t *testing.T) {
	needCommands(t, "javac", "checkstyle")
	cache := t.TempDir()
	t.Setenv("FIXLOOP_JAVA_CDS", cache)
	file := exampleMain(t)
	text := []byte("package example;\n\nclass Stats {\n\tint f(int a) {\n\t\treturn a * 100 + \"x\";\n\t}\n}\n")
	lint := func() []runner.Alert {
		t.Helper()
		// A new Linter: checkstyle's results are cached per Linter.
		res, err := newTestLinter(t, LinterOptions{Tools: ToolsCold}).Lint(t.Context(), file, map[string][]byte{file: text})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range res.Alerts {
			if a.Source == "fixloop" {
				t.Errorf("note: %s", a.Message)
			}
		}
		return res.Alerts
	}
	first := lint()
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, tool := range []string{"javac-", "checkstyle-"} {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, tool) && strings.HasSuffix(n, ".jsa") }) {
			t.Errorf("no %s*.jsa archive in the cache after the first run: %v", tool, names)
		}
	}
	if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, ".tmp") }) {
		t.Errorf("a temporary archive was left in the cache: %v", names)
	}
	if second := lint(); len(second) != len(first) || len(first) == 0 {
		t.Errorf("with the archives %d alerts, without %d", len(second), len(first))
	}
	// The (confined) JVM maps the archive: with -Xshare:on it would refuse
	// to start without it.
	javac, err := javacTool.Find()
	if err != nil {
		t.Fatal(err)
	}
	cds := javaCDS(t.TempDir(), "javac", javac, javaBinary())
	if len(cds.readOnly) != 1 || !slices.Contains(cds.flags, "-XX:SharedArchiveFile="+cds.readOnly[0]) {
		t.Fatalf("second run: flags %q, read-only %q; want to read the archive", cds.flags, cds.readOnly)
	}
	run, err := proc.RunTool(t.Context(), toolOptions(t.TempDir(), true, nil, cds.readOnly), javac,
		slices.Concat(withJ(cds.flags), []string{"-J-Xshare:on", "-version"})...)
	if err != nil {
		t.Fatal(err)
	}
	if run.Err != nil {
		t.Errorf("javac -J-Xshare:on with the archive: %v: %s", run.Err, run.Stdout.String())
	}
}

// TestSaveArchiveAcrossFileSystems: an archive written on another file
// system than the cache's (a tool's directory under /tmp, the cache under
// the home) is copied into place whole.
func TestSaveArchiveAcrossFileSystems(t *testing.T) {
	shm := "/dev/shm"
	if st, err := os.Stat(shm); err != nil || !st.IsDir() {
		t.Skip("no /dev/shm")
	}
	src, err := os.MkdirTemp(shm, "fixloop-cds-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(src)
	tmp := filepath.Join(src, "javac.jsa.tmp-1")
	if err := os.WriteFile(tmp, []byte("archive"), 0o444); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "javac-0123.jsa")
	saveArchive(tmp, archive)
	if b, err := os.ReadFile(archive); err != nil || string(b) != "archive" {
		t.Errorf("archive = %q, %v; want the written one", b, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(archive)); len(entries) != 1 {
		t.Errorf("the cache holds %v, want the archive alone", entries)
	}
}

// TestClasspathPaths: what javac is shown of its class path: each entry (a
// wildcard's directory), and for a Maven project the local repository in
// place of the jars in it.
func TestClasspathPaths(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "m2")
	t.Setenv("MAVEN_REPO_LOCAL", repo)
	cp := []string{"/opt/lib/a.jar", "/opt/libs/*", filepath.Join(repo, "g", "a", "1", "a-1.jar"), "/work/classes"}
	if got, want := classpathPaths(cp, false), []string{"/opt/lib/a.jar", "/opt/libs", cp[2], "/work/classes"}; !slices.Equal(got, want) {
		t.Errorf("without Maven: %q, want %q", got, want)
	}
	if got, want := classpathPaths(cp, true), []string{repo, "/opt/lib/a.jar", "/opt/libs", "/work/classes"}; !slices.Equal(got, want) {
		t.Errorf("with Maven: %q, want %q", got, want)
	}
}
