package java

import (
	"archive/zip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func pom(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>` + body + `</project>`
}

func TestResolveMaven(t *testing.T) {
	t.Parallel()
	top, repo := t.TempDir(), t.TempDir()
	writeFiles(t, top, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"pom.xml": pom(`<groupId>com.me</groupId><artifactId>parent</artifactId><version>1.0-SNAPSHOT</version>
			<packaging>pom</packaging><modules><module>core</module><module>app</module></modules>
			<properties><lib.version>2.0</lib.version><lib.alias>${lib.version}</lib.alias></properties>
			<dependencyManagement><dependencies>
			  <dependency><groupId>org.x</groupId><artifactId>managed</artifactId><version>3.1</version></dependency>
			  <dependency><groupId>org.bom</groupId><artifactId>bom</artifactId><version>1.0</version><type>pom</type><scope>import</scope></dependency>
			</dependencies></dependencyManagement>`),
		"core/pom.xml": pom(`<parent><groupId>com.me</groupId><artifactId>parent</artifactId><version>1.0-SNAPSHOT</version></parent>
			<artifactId>core</artifactId>
			<dependencies><dependency><groupId>org.c</groupId><artifactId>coredep</artifactId><version>1.0</version></dependency></dependencies>`),
		"app/pom.xml": pom(`<parent><groupId>com.me</groupId><artifactId>parent</artifactId><version>1.0-SNAPSHOT</version></parent>
			<artifactId>app</artifactId>
			<dependencies>
			  <dependency><groupId>org.x</groupId><artifactId>lib</artifactId><version>${lib.alias}</version></dependency>
			  <dependency><groupId>org.x</groupId><artifactId>managed</artifactId></dependency>
			  <dependency><groupId>org.y</groupId><artifactId>frombom</artifactId></dependency>
			  <dependency><groupId>com.me</groupId><artifactId>core</artifactId><version>${project.version}</version></dependency>
			  <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13</version><scope>test</scope></dependency>
			  <dependency><groupId>org.z</groupId><artifactId>absent</artifactId><version>1.0</version></dependency>
			  <dependency><groupId>org.r</groupId><artifactId>ranged</artifactId><version>[1.0,2.0)</version></dependency>
			</dependencies>`),
	})
	writeFiles(t, repo, map[string]string{
		"org/x/lib/2.0/lib-2.0.jar": "",
		"org/x/lib/2.0/lib-2.0.pom": pom(`<groupId>org.x</groupId><artifactId>lib</artifactId><version>2.0</version>
			<dependencies>
			  <dependency><groupId>org.t</groupId><artifactId>trans</artifactId><version>1.0</version></dependency>
			  <dependency><groupId>org.t</groupId><artifactId>testonly</artifactId><version>1.0</version><scope>test</scope></dependency>
			  <dependency><groupId>org.t</groupId><artifactId>optional</artifactId><version>1.0</version><optional>true</optional></dependency>
			  <dependency><groupId>org.x</groupId><artifactId>managed</artifactId><version>9.9</version></dependency>
			</dependencies>`),
		"org/t/trans/1.0/trans-1.0.jar":       "",
		"org/t/testonly/1.0/testonly-1.0.jar": "",
		"org/t/optional/1.0/optional-1.0.jar": "",
		"org/x/managed/3.1/managed-3.1.jar":   "",
		"org/x/managed/9.9/managed-9.9.jar":   "",
		"org/bom/bom/1.0/bom-1.0.pom": pom(`<groupId>org.bom</groupId><artifactId>bom</artifactId><version>1.0</version>
			<dependencyManagement><dependencies>
			  <dependency><groupId>org.y</groupId><artifactId>frombom</artifactId><version>5.0</version></dependency>
			</dependencies></dependencyManagement>`),
		"org/y/frombom/5.0/frombom-5.0.jar":              "",
		"junit/junit/4.13/junit-4.13.jar":                "",
		"org/c/coredep/1.0/coredep-1.0.jar":              "",
		"com/me/core/1.0-SNAPSHOT/core-1.0-SNAPSHOT.jar": "", // mvn install
	})
	cp, err := resolveMaven(filepath.Join(top, "app", "pom.xml"), repo)
	if err != nil {
		t.Fatal(err)
	}
	var jars []string
	for _, j := range cp.jars {
		rel, _ := filepath.Rel(repo, j)
		jars = append(jars, filepath.ToSlash(rel))
	}
	slices.Sort(jars)
	want := []string{
		"junit/junit/4.13/junit-4.13.jar",   // a test dependency of the project itself
		"org/c/coredep/1.0/coredep-1.0.jar", // of the sibling module core
		"org/t/trans/1.0/trans-1.0.jar",     // transitive, compile scope
		"org/x/lib/2.0/lib-2.0.jar",         // version from a property naming a property of the parent
		"org/x/managed/3.1/managed-3.1.jar", // from the parent's dependencyManagement; the nearer wins over lib's 9.9
		"org/y/frombom/5.0/frombom-5.0.jar", // from an imported BOM
	}
	if !slices.Equal(jars, want) {
		t.Errorf("jars:\n  %s\nwant:\n  %s", strings.Join(jars, "\n  "), strings.Join(want, "\n  "))
	}
	if want := []string{filepath.Join(top, "core", "src", "main", "java")}; !slices.Equal(cp.sources, want) {
		t.Errorf("sources %q, want %q", cp.sources, want)
	}
	if want := []string{filepath.Join(repo, "com", "me", "core", "1.0-SNAPSHOT", "core-1.0-SNAPSHOT.jar")}; !slices.Equal(cp.moduleJars, want) {
		t.Errorf("module jars %q, want %q", cp.moduleJars, want)
	}
	if want := []string{"org.z:absent:1.0", "org.r:ranged:[1.0,2.0)"}; !slices.Equal(cp.missing, want) {
		t.Errorf("missing %q, want %q", cp.missing, want)
	}
	if err := cp.missingError(); !strings.Contains(err.Error(), "2 Maven dependencies are not in the local repository (org.z:absent:1.0, org.r:ranged:[1.0,2.0))") {
		t.Errorf("missing note: %v", err)
	}
}

func TestMavenCacheReadsAChangedPom(t *testing.T) {
	t.Parallel()
	dir, repo := t.TempDir(), t.TempDir()
	write := func(version string, mod time.Time) {
		t.Helper()
		writeFiles(t, dir, map[string]string{"pom.xml": pom(`<groupId>g</groupId><artifactId>a</artifactId><version>1</version>
			<dependencies><dependency><groupId>org.x</groupId><artifactId>lib</artifactId><version>` + version + `</version></dependency></dependencies>`)})
		if err := os.Chtimes(filepath.Join(dir, "pom.xml"), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, repo, map[string]string{"org/x/lib/1/lib-1.jar": "", "org/x/lib/2/lib-2.jar": ""})
	var c MavenCache
	then := time.Now().Add(-time.Hour)
	write("1", then)
	if cp, err := c.classpath(filepath.Join(dir, "pom.xml"), repo); err != nil || len(cp.jars) != 1 || !strings.HasSuffix(cp.jars[0], "lib-1.jar") {
		t.Fatalf("first: %+v, %v", cp, err)
	}
	write("2", then.Add(time.Second))
	if cp, err := c.classpath(filepath.Join(dir, "pom.xml"), repo); err != nil || len(cp.jars) != 1 || !strings.HasSuffix(cp.jars[0], "lib-2.jar") {
		t.Errorf("after the pom changed: %+v, %v", cp, err)
	}
}

// TestLintResolvesMavenDependencies: a class of a Maven project that
// imports a dependency compiles when the dependency's jar is in the local
// repository, and without it gets javac's errors and one note saying what
// is missing and how to get it.
func TestLintResolvesMavenDependencies(t *testing.T) {
	needCommands(t, "javac")
	work := t.TempDir()
	repo := greeterRepo(t, work)

	project := filepath.Join(work, "project")
	writeFiles(t, project, map[string]string{
		"pom.xml": pom(`<groupId>com.me</groupId><artifactId>app</artifactId><version>1</version>
			<properties><greeter.version>1.2</greeter.version></properties>
			<dependencies><dependency><groupId>com.acme</groupId><artifactId>greeter</artifactId><version>${greeter.version}</version></dependency></dependencies>`),
		"src/main/java/com/me/App.java": "package com.me;\n\nimport com.acme.Greeter;\n\nfinal class App {\n    String greet() {\n        return Greeter.hello();\n    }\n}\n",
	})
	file := filepath.Join(project, "src", "main", "java", "com", "me", "App.java")

	tests := []struct {
		name     string
		repo     string
		wantNote bool
	}{
		{"in the local repository", repo, false},
		{"not downloaded", filepath.Join(work, "empty"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("MAVEN_REPO_LOCAL", tt.repo)
			l := newTestLinter(t, LinterOptions{})
			alerts, err := l.compile(context.Background(), mustLintTree(t, file))
			if err != nil {
				t.Fatal(err)
			}
			var errs, notes []string
			for _, a := range alerts {
				switch a.Source {
				case "compiler":
					errs = append(errs, a.Message)
				case "fixloop":
					notes = append(notes, a.Message)
				}
			}
			if tt.wantNote {
				if len(errs) == 0 || len(notes) != 1 || !strings.Contains(notes[0], "com.acme:greeter:1.2") || !strings.Contains(notes[0], "mvn dependency:go-offline") {
					t.Errorf("errors %q, notes %q; want javac's errors and one note naming com.acme:greeter:1.2", errs, notes)
				}
				return
			}
			if len(errs) > 0 || len(notes) > 0 {
				t.Errorf("errors %q, notes %q; want none", errs, notes)
			}
		})
	}
}

// TestTesterResolvesMavenDependencies: the JUnit run of a Maven project
// compiles and runs against the dependencies in the local repository.
func TestTesterResolvesMavenDependencies(t *testing.T) {
	needCommands(t, "javac", "java")
	needJUnit(t)
	work := t.TempDir()
	repo := greeterRepo(t, work)
	project := filepath.Join(work, "project")
	writeFiles(t, project, map[string]string{
		"pom.xml": pom(`<groupId>com.me</groupId><artifactId>app</artifactId><version>1</version>
			<dependencies><dependency><groupId>com.acme</groupId><artifactId>greeter</artifactId><version>1.2</version></dependency></dependencies>`),
		"src/main/java/com/me/App.java":     "package com.me;\n\nimport com.acme.Greeter;\n\nfinal class App {\n    String greet() {\n        return Greeter.hello();\n    }\n}\n",
		"src/test/java/com/me/AppTest.java": "package com.me;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass AppTest {\n    @Test\n    void greets() {\n        assertEquals(\"hi\", new App().greet());\n    }\n}\n",
	})
	t.Setenv("MAVEN_REPO_LOCAL", repo)
	rep, err := NewTester(TesterOptions{}).Test(context.Background(), filepath.Join(project, "src", "test", "java", "com", "me", "AppTest.java"), nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Passed != 1 {
		t.Errorf("passed %d, build failed %v, failures %+v; output:\n%s", rep.Passed, rep.BuildFailed, rep.Failures, rep.Output)
	}
}

// greeterRepo builds, under work, a local Maven repository holding
// com.acme:greeter:1.2, a jar with one class (com.acme.Greeter.hello()
// returns "hi"), and returns the repository's path.
func greeterRepo(t *testing.T, work string) string {
	t.Helper()
	writeFiles(t, work, map[string]string{"lib/com/acme/Greeter.java": "package com.acme;\n\npublic final class Greeter {\n    public static String hello() {\n        return \"hi\";\n    }\n}\n"})
	classes := filepath.Join(work, "classes")
	if out, err := exec.Command("javac", "-d", classes, filepath.Join(work, "lib", "com", "acme", "Greeter.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	repo := filepath.Join(work, "repo")
	writeJar(t, filepath.Join(repo, "com", "acme", "greeter", "1.2", "greeter-1.2.jar"), classes)
	return repo
}

// mustLintTree builds the temporary source tree Lint checks file in.
func mustLintTree(t *testing.T, file string) *lintTree {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := newLintTree("", file, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tree.dir) })
	return tree
}

// writeJar zips the class files under classes into a jar at path.
func writeJar(t *testing.T, path, classes string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	if err := zw.AddFS(os.DirFS(classes)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestResolveMavenRules: the rules of Maven's resolution that decide which
// jar of an artifact is used, each in a small project.
func TestResolveMavenRules(t *testing.T) {
	t.Parallel()
	dep := func(g, a, v, extra string) string {
		return `<dependency><groupId>` + g + `</groupId><artifactId>` + a + `</artifactId>` +
			map[bool]string{true: `<version>` + v + `</version>`}[v != ""] + extra + `</dependency>`
	}
	deps := func(ds ...string) string { return `<dependencies>` + strings.Join(ds, "") + `</dependencies>` }
	managed := func(ds ...string) string { return `<dependencyManagement>` + deps(ds...) + `</dependencyManagement>` }
	tests := []struct {
		name    string
		repo    map[string]string
		project map[string]string // pom.xml is the project's
		jars    []string
		missing []string
	}{
		{
			name: "a child's property fills in its parent's management",
			repo: map[string]string{
				"org/p/parent/1.0/parent-1.0.pom": pom(`<groupId>org.p</groupId><artifactId>parent</artifactId><version>1.0</version>
					<properties><jackson.version>2.9</jackson.version></properties>` + managed(dep("com.j", "jackson", "${jackson.version}", ""))),
				"com/j/jackson/2.15/jackson-2.15.jar": "",
			},
			project: map[string]string{"pom.xml": pom(`<parent><groupId>org.p</groupId><artifactId>parent</artifactId><version>1.0</version><relativePath/></parent>
				<artifactId>app</artifactId><properties><jackson.version>2.15</jackson.version></properties>` + deps(dep("com.j", "jackson", "", "")))},
			jars: []string{"com/j/jackson/2.15/jackson-2.15.jar"},
		},
		{
			name: "the project's management sets a transitive version",
			repo: map[string]string{
				"org/a/a/1.0/a-1.0.jar": "",
				"org/a/a/1.0/a-1.0.pom": pom(`<groupId>org.a</groupId><artifactId>a</artifactId><version>1.0</version>` + deps(dep("org.b", "b", "1.0", ""))),
				"org/b/b/2.0/b-2.0.jar": "",
			},
			project: map[string]string{"pom.xml": pom(`<groupId>g</groupId><artifactId>app</artifactId><version>1</version>` +
				managed(dep("org.b", "b", "2.0", "")) + deps(dep("org.a", "a", "1.0", "")))},
			jars: []string{"org/a/a/1.0/a-1.0.jar", "org/b/b/2.0/b-2.0.jar"},
		},
		{
			name: "a child's declaration wins over its parent's",
			repo: map[string]string{"junit/junit/4.13/junit-4.13.jar": "", "junit/junit/4.12/junit-4.12.jar": ""},
			project: map[string]string{
				"pom.xml": pom(`<parent><groupId>g</groupId><artifactId>parent</artifactId><version>1</version><relativePath>parent</relativePath></parent>
					<artifactId>app</artifactId>` + deps(dep("junit", "junit", "4.13", "<scope>test</scope>"))),
				"parent/pom.xml": pom(`<groupId>g</groupId><artifactId>parent</artifactId><version>1</version>` + deps(dep("junit", "junit", "4.12", "<scope>test</scope>"))),
			},
			jars: []string{"junit/junit/4.13/junit-4.13.jar"},
		},
		{
			name: "a transitive dependency managed to test scope is not followed",
			repo: map[string]string{
				"org/a/par/1.0/par-1.0.pom": pom(`<groupId>org.a</groupId><artifactId>par</artifactId><version>1.0</version>` +
					managed(dep("junit", "junit", "3.8", "<scope>test</scope>"))),
				"org/a/a/1.0/a-1.0.jar": "",
				"org/a/a/1.0/a-1.0.pom": pom(`<parent><groupId>org.a</groupId><artifactId>par</artifactId><version>1.0</version></parent>
					<artifactId>a</artifactId>` + deps(dep("junit", "junit", "", ""))),
			},
			project: map[string]string{"pom.xml": pom(`<groupId>g</groupId><artifactId>app</artifactId><version>1</version>` + deps(dep("org.a", "a", "1.0", "")))},
			jars:    []string{"org/a/a/1.0/a-1.0.jar"},
		},
		{
			name: "exclusions",
			repo: map[string]string{
				"org/a/a/1.0/a-1.0.jar": "",
				"org/a/a/1.0/a-1.0.pom": pom(`<groupId>org.a</groupId><artifactId>a</artifactId><version>1.0</version>` +
					deps(dep("commons-logging", "commons-logging", "1.1", ""), dep("org.k", "kept", "1.0", ""))),
				"org/k/kept/1.0/kept-1.0.jar": "",
			},
			project: map[string]string{"pom.xml": pom(`<groupId>g</groupId><artifactId>app</artifactId><version>1</version>` +
				deps(dep("org.a", "a", "1.0", `<exclusions><exclusion><groupId>commons-logging</groupId><artifactId>*</artifactId></exclusion></exclusions>`)))},
			jars: []string{"org/a/a/1.0/a-1.0.jar", "org/k/kept/1.0/kept-1.0.jar"},
		},
		{
			name: "an artifact's tests jar beside its main jar",
			repo: map[string]string{"org/a/a/1.0/a-1.0.jar": "", "org/a/a/1.0/a-1.0-tests.jar": ""},
			project: map[string]string{"pom.xml": pom(`<groupId>g</groupId><artifactId>app</artifactId><version>1</version>` +
				deps(dep("org.a", "a", "1.0", ""), dep("org.a", "a", "1.0", "<type>test-jar</type><scope>test</scope>")))},
			jars: []string{"org/a/a/1.0/a-1.0-tests.jar", "org/a/a/1.0/a-1.0.jar"},
		},
		{
			name: "the reactor stops at the project's repository root",
			repo: map[string]string{},
			project: map[string]string{
				"pom.xml":          pom(`<groupId>g</groupId><artifactId>app</artifactId><version>1</version>` + deps(dep("g", "other", "1", ""))),
				"../pom.xml":       pom(`<groupId>g</groupId><artifactId>workspace</artifactId><version>1</version><modules><module>other</module></modules>`),
				"../other/pom.xml": pom(`<groupId>g</groupId><artifactId>other</artifactId><version>1</version>`),
			},
			missing: []string{"g:other:1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			top, repo := t.TempDir(), t.TempDir()
			project := filepath.Join(top, "project")
			writeFiles(t, repo, tt.repo)
			writeFiles(t, project, tt.project)
			writeFiles(t, project, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			cp, err := resolveMaven(filepath.Join(project, "pom.xml"), repo)
			if err != nil {
				t.Fatal(err)
			}
			var jars []string
			for _, j := range cp.jars {
				rel, _ := filepath.Rel(repo, j)
				jars = append(jars, filepath.ToSlash(rel))
			}
			slices.Sort(jars)
			if !slices.Equal(jars, tt.jars) || !slices.Equal(cp.missing, tt.missing) {
				t.Errorf("jars %q, missing %q; want %q, %q (sources %q)", jars, cp.missing, tt.jars, tt.missing, cp.sources)
			}
		})
	}
}

// TestMavenCacheLooksAgainForMissingArtifacts: a class path that lacks
// artifacts is resolved again after missingRecheck (the user may have run
// mvn dependency:go-offline); a complete one is kept.
func TestMavenCacheLooksAgainForMissingArtifacts(t *testing.T) {
	t.Parallel()
	dir, repo := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"pom.xml": pom(`<groupId>g</groupId><artifactId>a</artifactId><version>1</version>
		<dependencies><dependency><groupId>org.x</groupId><artifactId>lib</artifactId><version>1</version></dependency></dependencies>`)})
	var c MavenCache
	pomPath := filepath.Join(dir, "pom.xml")
	cp, err := c.classpath(pomPath, repo)
	if err != nil || len(cp.missing) != 1 {
		t.Fatalf("first: %+v, %v", cp, err)
	}
	writeFiles(t, repo, map[string]string{"org/x/lib/1/lib-1.jar": ""}) // go-offline
	if again, _ := c.classpath(pomPath, repo); again != cp {
		t.Errorf("resolved again before missingRecheck")
	}
	cp.resolved = cp.resolved.Add(-missingRecheck)
	again, err := c.classpath(pomPath, repo)
	if err != nil || len(again.missing) != 0 || len(again.jars) != 1 {
		t.Fatalf("after missingRecheck: %+v, %v", again, err)
	}
	again.resolved = again.resolved.Add(-missingRecheck)
	if kept, _ := c.classpath(pomPath, repo); kept != again {
		t.Errorf("a complete class path was resolved again")
	}
}
