package main

// The real modules the benchmark edits, and how each is fetched from the
// Go module proxy into a writable copy that both servers can load.

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The modules, by rule (issue 25: "picked by a rule you state and not by
// hand"):
//
//   - the seeds: the four modules issue 13 measured (go-toml/v2, chi/v5,
//     cobra, client_golang), at the versions below;
//   - then every direct requirement (a require line of go.mod without
//     "// indirect", at the version it names) of the three seeds whose
//     go.mod is small, go-toml/v2, chi/v5 and cobra, that has a package
//     with _test.go files built on linux/amd64. client_golang's nine are
//     left out only for the run's length: two of them are
//     golang.org/x/sys and google.golang.org/protobuf, larger than
//     everything else here together.
//
// requirementSpecs applies the second part to the seeds' go.mod files, so
// nobody picks those modules by hand: with the seeds' versions below they
// are stretchr/testify, cpuguy83/go-md2man/v2, spf13/pflag and
// gopkg.in/yaml.v3 (inconshreveable/mousetrap has no tests).
//
// The files of every real module are chosen by rule too (chooseFiles):
// the edited file (scenarios a, burst, cold and warm opens) is the non-test
// file beside the module's largest _test.go (the file of the same stem,
// else the package's largest non-test file), so the edited package carries
// a large test variant; scenario c edits that _test.go; scenario d edits
// the module's largest non-test file with a //go:build line that holds on
// linux/amd64, if it has one. Only packages whose tests compile (go test
// -c) count: neither server reports analyzer findings in a package whose
// test variant has type errors, as client_golang's prometheus and
// prometheus/collectors have with Go 1.23 and later (their generated
// runtime metrics stop at go1.22). Only scenario b's declaration and
// dependent are named by hand, for the seeds.

// moduleSpec names a module version and the files each scenario edits.
type moduleSpec struct {
	Path, Version string
	Short         string
	// EditFile is a non-test file of a package that has _test.go files
	// (so the package has test variants): scenario a, the bursts, and the
	// file opened cold and warm. Chosen by chooseFiles for a real module.
	EditFile string
	// DeclFile declares the exported function DeclName, which
	// DependentFile, in another package of the module, calls: scenario b.
	DeclFile, DeclName, DependentFile string
	// TestFile is a _test.go file: scenario c. Chosen by chooseFiles for a
	// real module.
	TestFile string
	// TaggedFile has a //go:build constraint that holds on linux/amd64:
	// scenario d. Chosen by chooseFiles for a real module.
	TaggedFile string
	// Local, when set, is a directory of this repository that is copied
	// instead of a module from the proxy: docs/performance.md's bench package. Its
	// rows stay out of the real modules' geometric means, and a scenario
	// whose file is not named is not run.
	Local string
	// Requirements: this seed's direct requirements join the run
	// (requirementSpecs).
	Requirements bool
}

// scenarios are the edit scenarios whose files the spec names, in order.
func (s *moduleSpec) scenarios() []string {
	out := []string{scEdit}
	if s.DeclFile != "" {
		out = append(out, scDep)
	}
	if s.TestFile != "" {
		out = append(out, scTest)
	}
	if s.TaggedFile != "" {
		out = append(out, scTagged)
	}
	return append(out, scBurst)
}

// fixture reports whether the spec is one of this repository's packages.
func (s *moduleSpec) fixture() bool { return s.Local != "" }

// specs are the bench package, then the seeds, small to large.
// requirementSpecs adds the seeds' requirements.
var specs = []*moduleSpec{
	{
		Path: "example.com/benchpkg", Version: "testdata", Short: "benchpkg", Local: "testdata/benchpkg",
		EditFile: "orders.go",
		TestFile: "orders_test.go",
	},
	{
		Path: "github.com/pelletier/go-toml/v2", Version: "v2.2.2", Short: "go-toml/v2", Requirements: true,
		DeclFile: "internal/characters/ascii.go", DeclName: "InvalidAscii", DependentFile: "marshaler.go",
	},
	{
		Path: "github.com/go-chi/chi/v5", Version: "v5.0.12", Short: "chi/v5", Requirements: true,
		DeclFile: "context.go", DeclName: "RouteContext", DependentFile: "middleware/get_head.go",
	},
	{
		Path: "github.com/spf13/cobra", Version: "v1.8.1", Short: "cobra", Requirements: true,
		DeclFile: "cobra.go", DeclName: "WriteStringAndCheck", DependentFile: "doc/man_docs.go",
	},
	{
		Path: "github.com/prometheus/client_golang", Version: "v1.19.0", Short: "client_golang",
		DeclFile: "prometheus/desc.go", DeclName: "NewDesc", DependentFile: "prometheus/collectors/dbstats_collector.go",
	},
}

// prepared is a module copied to a writable directory, its dependencies
// downloaded.
type prepared struct {
	Spec       *moduleSpec
	Root       string
	Packages   int // packages of the module
	GoFiles    int
	Lines      int
	Constraint string // TaggedFile's //go:build expression
}

// goEnv is the environment of the go commands the benchmark runs itself.
func goEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
}

func runGo(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("go %s (in %s): %v: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// prepare fetches spec's module with the Go module proxy (go mod download
// -json gives its directory in the read-only module cache), copies it to
// work/src, makes it writable, downloads its dependencies (from the proxy
// too) and checks that every package and test of it loads.
func prepare(spec *moduleSpec, work string) (*prepared, error) {
	src, err := source(spec, work)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(work, "src", strings.ReplaceAll(spec.Short, "/", "-"))
	if err := copyTree(src, root); err != nil {
		return nil, fmt.Errorf("copying %s: %w", src, err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, fmt.Errorf("%s@%s has no go.mod", spec.Path, spec.Version)
	}
	// all: with the go.sum entries of the test dependencies too, which
	// some modules' go.sum lacks (yaml.v3's gopkg.in/check.v1).
	if _, err := runGo(root, "mod", "download", "all"); err != nil {
		return nil, err
	}
	// -deps -test loads (and so downloads) everything the servers will.
	if _, err := runGo(root, "list", "-e", "-deps", "-test", "./..."); err != nil {
		return nil, err
	}
	pkgs, err := runGo(root, "list", "./...")
	if err != nil {
		return nil, err
	}
	if !spec.fixture() {
		// The rule's files; the spec is the run's own copy.
		cp := *spec
		if cp.EditFile, cp.TestFile, cp.TaggedFile, err = chooseFiles(root, testsCompile(root)); err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Short, err)
		}
		spec = &cp
	}
	p := &prepared{Spec: spec, Root: root, Packages: len(strings.Fields(string(pkgs)))}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			p.GoFiles++
			if b, err := os.ReadFile(path); err == nil {
				p.Lines += bytes.Count(b, []byte("\n"))
			}
		}
		return nil
	})
	return p, p.check()
}

// source returns the directory that holds spec's files: the module's
// directory in the read-only module cache, downloaded with the proxy, or
// the repository's own directory.
func source(spec *moduleSpec, work string) (string, error) {
	if spec.fixture() {
		abs, err := filepath.Abs(spec.Local)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	m, err := download(work, spec.Path+"@"+spec.Version)
	if err != nil {
		return "", err
	}
	return m.Dir, nil
}

// check makes sure the spec's files are what the scenarios need.
func (p *prepared) check() error {
	s := p.Spec
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(p.Root, rel))
		if err != nil {
			return "", fmt.Errorf("%s@%s: %w", s.Path, s.Version, err)
		}
		return string(b), nil
	}
	if _, err := read(s.EditFile); err != nil {
		return err
	}
	tests, _ := filepath.Glob(filepath.Join(p.Root, filepath.Dir(s.EditFile), "*_test.go"))
	if len(tests) == 0 {
		return fmt.Errorf("%s: the package of %s has no _test.go files", s.Short, s.EditFile)
	}
	if s.DeclFile != "" {
		if err := p.checkDecl(read); err != nil {
			return err
		}
	}
	if s.TestFile != "" {
		if !strings.HasSuffix(s.TestFile, "_test.go") {
			return fmt.Errorf("%s: %s is not a _test.go file", s.Short, s.TestFile)
		}
		if _, err := read(s.TestFile); err != nil {
			return err
		}
	}
	if s.TaggedFile != "" {
		tagged, err := read(s.TaggedFile)
		if err != nil {
			return err
		}
		if p.Constraint = buildConstraint(tagged); p.Constraint == "" {
			return fmt.Errorf("%s: %s has no //go:build line", s.Short, s.TaggedFile)
		}
	}
	return nil
}

// checkDecl makes sure DeclFile declares DeclName and DependentFile, in
// another package, calls it.
func (p *prepared) checkDecl(read func(string) (string, error)) error {
	s := p.Spec
	decl, err := read(s.DeclFile)
	if err != nil {
		return err
	}
	if declNameAt(decl, s.DeclName) < 0 {
		return fmt.Errorf("%s: %s does not declare func %s", s.Short, s.DeclFile, s.DeclName)
	}
	dep, err := read(s.DependentFile)
	if err != nil {
		return err
	}
	if !strings.Contains(dep, "."+s.DeclName+"(") || filepath.Dir(s.DependentFile) == filepath.Dir(s.DeclFile) {
		return fmt.Errorf("%s: %s (another package) does not call %s", s.Short, s.DependentFile, s.DeclName)
	}
	return nil
}

// copyTree copies the regular files and directories of src to dst,
// writable by the owner.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
