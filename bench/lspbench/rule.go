package main

// The rule that picks the modules beyond the seeds and the files every real
// module's scenarios edit (see the comment above moduleSpec).

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// requirementSpecs returns, after the given specs, one spec for each direct
// requirement of the seeds marked Requirements that is not already among
// them, is wanted and has a package with _test.go files built on
// linux/amd64, in the seeds' order and then go.mod's. Requirements that
// are not wanted are not downloaded.
func requirementSpecs(work string, seeds []*moduleSpec, wanted func(*moduleSpec) bool) ([]*moduleSpec, error) {
	out := append([]*moduleSpec(nil), seeds...)
	have := map[string]bool{}
	for _, s := range seeds {
		have[s.Path] = true
	}
	for _, seed := range seeds {
		if !seed.Requirements {
			continue
		}
		m, err := download(work, seed.Path+"@"+seed.Version)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(m.GoMod)
		if err != nil {
			return nil, err
		}
		f, err := modfile.ParseLax(m.GoMod, data, nil)
		if err != nil {
			return nil, err
		}
		for _, r := range f.Require {
			if r.Indirect || have[r.Mod.Path] {
				continue
			}
			have[r.Mod.Path] = true
			spec := &moduleSpec{Path: r.Mod.Path, Version: r.Mod.Version, Short: shortName(r.Mod.Path)}
			if !wanted(spec) {
				continue
			}
			dep, err := download(work, r.Mod.Path+"@"+r.Mod.Version)
			if err != nil {
				return nil, err
			}
			if _, _, _, err := chooseFiles(dep.Dir, nil); err != nil {
				logf("%s@%s (required by %s): not measured: %v", r.Mod.Path, r.Mod.Version, seed.Short, err)
				continue
			}
			out = append(out, spec)
		}
	}
	return out, nil
}

// download fetches module@version with the Go module proxy into the
// module cache.
func download(work, modVersion string) (modDownload, error) {
	out, err := runGo(work, "mod", "download", "-json", modVersion)
	if err != nil {
		if m, perr := parseModDownload(out); perr != nil && m.Error != "" {
			return m, perr
		}
		return modDownload{}, err
	}
	return parseModDownload(out)
}

// shortName is a module path's last element, with its major version
// suffix: github.com/cpuguy83/go-md2man/v2 -> go-md2man/v2.
func shortName(modPath string) string {
	dir, last := path.Split(modPath)
	if len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		return path.Base(strings.TrimSuffix(dir, "/")) + "/" + last
	}
	return last
}

var generatedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// chooseFiles applies the file rule to the module in root: test is the
// largest _test.go file (bytes; ties by path) of a package that has a
// non-test file, edit the non-test file of test's stem in its directory,
// else that directory's largest non-test file; tagged is the module's
// largest non-test file with a //go:build line, "" if none. Only files
// built on linux/amd64 count, in packages for which compiles (if not nil)
// holds; generated files and files under testdata, vendor, directories
// starting with "." or "_" and nested modules do not.
func chooseFiles(root string, compiles func(dir string) bool) (edit, test, tagged string, err error) {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "linux", "amd64"
	type file struct {
		rel  string
		size int64
	}
	compiledDirs := map[string]bool{}
	compiled := func(dir string) bool {
		if compiles == nil {
			return true
		}
		c, seen := compiledDirs[dir]
		if !seen {
			c = compiles(dir)
			compiledDirs[dir] = c
		}
		return c
	}
	var tests, tags []file
	nonTest := map[string][]file{} // dir -> non-test files
	werr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		if ok, err := ctx.MatchFile(filepath.Dir(p), d.Name()); err != nil || !ok {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if generatedRE.Match(b) {
			return nil
		}
		f := file{rel, int64(len(b))}
		if strings.HasSuffix(d.Name(), "_test.go") {
			tests = append(tests, f)
			return nil
		}
		nonTest[filepath.Dir(rel)] = append(nonTest[filepath.Dir(rel)], f)
		if buildConstraint(string(b)) != "" {
			tags = append(tags, f)
		}
		return nil
	})
	if werr != nil {
		return "", "", "", werr
	}
	largest := func(fs []file) {
		sort.Slice(fs, func(i, j int) bool {
			if fs[i].size != fs[j].size {
				return fs[i].size > fs[j].size
			}
			return fs[i].rel < fs[j].rel
		})
	}
	largest(tests)
	for _, t := range tests {
		beside := nonTest[filepath.Dir(t.rel)]
		if len(beside) == 0 || !compiled(filepath.Dir(t.rel)) {
			continue
		}
		test = t.rel
		stem := strings.TrimSuffix(t.rel, "_test.go") + ".go"
		for _, f := range beside {
			if f.rel == stem {
				edit = stem
				break
			}
		}
		if edit == "" {
			largest(beside)
			edit = beside[0].rel
		}
		break
	}
	if test == "" {
		msg := "no package with _test.go files built on linux/amd64"
		if compiles != nil {
			msg += " whose tests compile"
		}
		return "", "", "", errors.New(msg)
	}
	largest(tags)
	for _, t := range tags {
		if compiled(filepath.Dir(t.rel)) {
			tagged = t.rel
			break
		}
	}
	return filepath.ToSlash(edit), filepath.ToSlash(test), filepath.ToSlash(tagged), nil
}

// testsCompile reports whether the package in dir of the module in root
// compiles with its tests (go test -c, without vet): a package whose test variant has
// type errors gets no analyzer findings from either server.
func testsCompile(root string) func(dir string) bool {
	return func(dir string) bool {
		_, err := runGo(root, "test", "-vet=off", "-c", "-o", os.DevNull, "./"+filepath.ToSlash(dir))
		if err != nil {
			line, _, _ := strings.Cut(err.Error(), "\n")
			logf("%s: not chosen from: %v", filepath.Join(filepath.Base(root), dir), line)
		}
		return err == nil
	}
}
