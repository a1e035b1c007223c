package java

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/tool"
)

// The programs this package runs.
var (
	javacTool = tool.Tool{
		Name: "javac", Language: "java", Commands: []string{"javac"},
		Package: "Debian package default-jdk-headless", Install: "apt install default-jdk-headless",
		VersionArgs: []string{"-version"},
	}
	javaTool = tool.Tool{
		Name: "java", Language: "java", Commands: []string{"java"},
		Package: "Debian package default-jdk-headless", Install: "apt install default-jdk-headless",
		VersionArgs: []string{"-version"},
	}
	checkstyleTool = tool.Tool{
		Name: "checkstyle", Language: "java", Commands: []string{"checkstyle"},
		Package: "Debian package checkstyle", Install: "apt install checkstyle",
		VersionArgs: []string{"--version"},
	}
)

// junitJarPaths are where distributions install the JUnit 5 console
// launcher, in the order they are tried.
var junitJarPaths = []string{
	"/usr/share/java/junit-platform-console-standalone.jar",
}

// Tools lists the tools this package uses, for `fixloop check --tools`. The
// JUnit 5 console launcher is a jar, not a command: its Commands are empty,
// so tool.Find and tool.Discover always call it missing; use FindJUnit or
// Discover for it. PMD is also looked for at $FIXLOOP_PMD: use FindPMD or
// Discover for it.
func Tools() []tool.Tool {
	return []tool.Tool{javacTool, javaTool, checkstyleTool, pmdTool, JUnit().Tool}
}

// Jar is a Java library that fixloop runs with `java -jar` or puts on a
// class path: a file at a known place rather than a command on PATH.
type Jar struct {
	// Tool names the jar and says which package provides it; its Commands
	// are empty.
	Tool tool.Tool
	// Paths are the places to look, in order.
	Paths []string
}

// JUnit describes the JUnit 5 console launcher jar.
func JUnit() Jar {
	return Jar{
		Tool: tool.Tool{
			Name: "junit5", Language: "java", Commands: []string{},
			Package: "Debian package junit5", Install: "apt install junit5",
		},
		Paths: junitJarPaths,
	}
}

// Find returns the first of j's paths that is a regular file, or a
// *tool.MissingError whose tool lists the paths looked at.
func (j Jar) Find() (string, error) {
	for _, p := range j.Paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	t := j.Tool
	t.Commands = j.Paths
	return "", &tool.MissingError{Tool: t}
}

// Version returns the jar's version as its versioned file name next to it
// tells ("1.9.1" from junit-platform-console-standalone-1.9.1.jar), or "".
func (j Jar) Version() string {
	path, err := j.Find()
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".jar")
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), stem+"-*.jar"))
	for _, m := range matches {
		if r, err := filepath.EvalSymlinks(m); err == nil && r == real {
			return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), stem+"-"), ".jar")
		}
	}
	return ""
}

// FindJUnit returns the path of the JUnit 5 console launcher jar
// (junit-platform-console-standalone.jar), or a *tool.MissingError.
func FindJUnit() (string, error) { return JUnit().Find() }

// Discover finds the tools of Tools and reads their versions, PMD (pmd on
// PATH, else $FIXLOOP_PMD) and the JUnit jar included.
func Discover(ctx context.Context) []tool.Status {
	out := tool.Discover(ctx, []tool.Tool{javacTool, javaTool, checkstyleTool})
	pmd := tool.Status{Tool: pmdTool}
	pmd.Path, pmd.Err = FindPMD()
	if pmd.Err == nil {
		pmd.Version = pmdVersion(ctx, pmd.Path)
	}
	out = append(out, pmd)
	j := JUnit()
	st := tool.Status{Tool: j.Tool}
	st.Path, st.Err = j.Find()
	if st.Err == nil {
		st.Version = j.Version()
	}
	return append(out, st)
}

// resolveAll finds tools in order, resolved from dir (the JDK's own
// launchers behind /usr/bin's links or a jenv shim, see tool.Tool.Resolve),
// and stops at the first missing one.
func resolveAll(ctx context.Context, log *slog.Logger, dir string, tools ...tool.Tool) ([]interp.Program, error) {
	progs := make([]interp.Program, 0, len(tools))
	for _, t := range tools {
		p, err := t.Resolve(ctx, log, dir)
		if err != nil {
			return nil, fmt.Errorf("finding %s: %w", t.Name, err)
		}
		progs = append(progs, p)
	}
	return progs, nil
}
