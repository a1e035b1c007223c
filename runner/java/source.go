package java

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// packageDecl matches a package declaration once comments are blanked out.
var packageDecl = regexp.MustCompile(`(?m)^[ \t]*(?:@[\w.]+(?:\([^)]*\))?\s*)*package\s+([\p{L}_$][\p{L}\p{N}_$]*(?:\s*\.\s*[\p{L}_$][\p{L}\p{N}_$]*)*)\s*;`)

// packageName returns the package a Java source declares ("" for the
// unnamed package).
func packageName(text []byte) string {
	m := packageDecl.FindSubmatch(blankComments(text))
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(string(m[1]), ".", " ")), ".")
}

// blankComments returns text with the bodies of comments replaced by
// spaces (newlines kept), so that a package declaration in a comment does
// not count. String literals are skipped over.
func blankComments(text []byte) []byte {
	out := []byte(string(text))
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"' || out[i] == '\'':
			q := out[i]
			for i++; i < len(out) && out[i] != q && out[i] != '\n'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}

// packageDir is pkg as a relative directory ("com/x" for com.x).
func packageDir(pkg string) string {
	if pkg == "" {
		return ""
	}
	return filepath.FromSlash(strings.ReplaceAll(pkg, ".", "/"))
}

// sourceRoot returns the directory that holds the package directories of a
// file in dir that declares pkg: dir minus one directory per package
// segment. ok is false when dir does not end with the package's
// directories; root is then dir itself.
func sourceRoot(dir, pkg string) (root string, ok bool) {
	dir = filepath.Clean(dir)
	if pkg == "" {
		return dir, true
	}
	segs := strings.Split(pkg, ".")
	root = dir
	for i := len(segs) - 1; i >= 0; i-- {
		if filepath.Base(root) != segs[i] {
			return dir, false
		}
		root = filepath.Dir(root)
	}
	return root, true
}

// relatedRoots returns the other source roots a file's source root sees:
// src/main/java for a Maven src/test/java root.
func relatedRoots(root string) []string {
	test := filepath.Join("src", "test", "java")
	if !strings.HasSuffix(root, string(filepath.Separator)+test) {
		return nil
	}
	main := filepath.Join(strings.TrimSuffix(root, test), "src", "main", "java")
	if st, err := os.Stat(main); err == nil && st.IsDir() {
		return []string{main}
	}
	return nil
}

// projectMarkers are the files that mark a project root for the tester.
var projectMarkers = []string{"pom.xml", "build.gradle", "build.gradle.kts", ".fixloop.yaml"}

// projectRoot returns the directory whose tests run for file: the nearest
// directory at or above the file's that holds a project marker (stopping at
// a directory with .git), else the source root of pkg.
func projectRoot(file, pkg string) string {
	if marker := runner.FindUp(filepath.Dir(file), projectMarkers...); marker != "" {
		return filepath.Dir(marker)
	}
	root, _ := sourceRoot(filepath.Dir(file), pkg)
	return root
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ProjectRoot returns the directory whose tests run for the Java file at
// path (read from disk for its package): the nearest directory holding
// pom.xml, build.gradle or .fixloop.yaml, else its package's source root.
func ProjectRoot(path string) string {
	text, _ := os.ReadFile(path)
	return projectRoot(path, packageName(text))
}
