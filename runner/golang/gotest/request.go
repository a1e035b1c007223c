package gotest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// request is one Run, resolved: where the package is, what stands in for its
// files, and the cache key of all that.
type request struct {
	file       string            // the file Run was asked about (absolute, clean)
	dir        string            // package directory (absolute, clean)
	modRoot    string            // directory holding go.mod
	importPath string            // derived from go.mod's module line; may be ""
	overlay    map[string][]byte // absolute clean path -> content
	timeout    time.Duration
	sandbox    Sandbox
	key        string
	// testSources holds the package's _test.go files by base name, overlay
	// applied, to find a test's declaration when its output names no line.
	testSources map[string][]byte
}

// resolved returns req with its paths through no symlinks, or req itself
// when none of them goes through one.
func (req *request) resolved() *request {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(r, filepath.Base(p))
		}
		return p
	}
	realDir := func(d string) string {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return r
		}
		return d
	}
	out := *req
	out.file, out.dir, out.modRoot = real(req.file), realDir(req.dir), realDir(req.modRoot)
	if out.file == req.file && out.dir == req.dir && out.modRoot == req.modRoot {
		return req
	}
	out.overlay = make(map[string][]byte, len(req.overlay))
	for p, text := range req.overlay {
		out.overlay[real(p)] = text
	}
	return &out
}

// prepare resolves file to its package and module and computes the cache
// key: a hash of the package directory's .go files (overlay applied), go.mod
// and go.sum, every other overlay entry, the timeout and the sandbox.
func prepare(file string, overlay map[string][]byte, timeout time.Duration, sb Sandbox) (*request, error) {
	if !filepath.IsAbs(file) {
		return nil, fmt.Errorf("file path %q is not absolute", file)
	}
	req := &request{
		file:        filepath.Clean(file),
		dir:         filepath.Dir(filepath.Clean(file)),
		overlay:     make(map[string][]byte, len(overlay)),
		timeout:     timeout,
		sandbox:     sb,
		testSources: make(map[string][]byte),
	}
	for p, content := range overlay {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("overlay path %q is not absolute", p)
		}
		req.overlay[filepath.Clean(p)] = content
	}
	root, err := findModuleRoot(req.dir)
	if err != nil {
		return nil, err
	}
	req.modRoot = root

	h := sha256.New()
	writeField(h, []byte("gotest/v1"))
	writeField(h, []byte(req.dir))
	writeField(h, []byte(strconv.FormatInt(int64(timeout), 10)))
	writeField(h, []byte(sb.keyString()))

	files, err := req.packageFiles()
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		content, err := req.read(filepath.Join(req.dir, name))
		if err != nil {
			return nil, fmt.Errorf("reading package file: %w", err)
		}
		writeField(h, []byte(name))
		writeField(h, content)
		if strings.HasSuffix(name, "_test.go") {
			req.testSources[name] = content
		}
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		content, err := req.read(filepath.Join(root, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading module file: %w", err)
		}
		writeField(h, []byte(name))
		writeField(h, content)
		if name == "go.mod" {
			req.importPath = importPath(content, root, req.dir)
		}
	}
	// Overlay entries elsewhere (another package of the module) also change
	// what is built.
	var others []string
	for p := range req.overlay {
		if filepath.Dir(p) != req.dir && p != filepath.Join(root, "go.mod") && p != filepath.Join(root, "go.sum") {
			others = append(others, p)
		}
	}
	slices.Sort(others)
	for _, p := range others {
		writeField(h, []byte(p))
		writeField(h, req.overlay[p])
	}
	req.key = hex.EncodeToString(h.Sum(nil))
	return req, nil
}

// packageFiles lists the .go files of the package directory, on disk or in
// the overlay, sorted.
func (req *request) packageFiles() ([]string, error) {
	entries, err := os.ReadDir(req.dir)
	if err != nil {
		return nil, fmt.Errorf("reading package directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	for p := range req.overlay {
		if filepath.Dir(p) == req.dir && strings.HasSuffix(p, ".go") {
			names = append(names, filepath.Base(p))
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// read returns the content of path, from the overlay if it is there.
func (req *request) read(path string) ([]byte, error) {
	if content, ok := req.overlay[path]; ok {
		return content, nil
	}
	return os.ReadFile(path)
}

// writeField adds a length-prefixed field to h, so that field boundaries
// cannot be confused.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// findModuleRoot returns the nearest directory at or above dir that holds a
// go.mod file.
func findModuleRoot(dir string) (string, error) {
	if root := runner.ModuleRoot(dir); root != "" {
		return root, nil
	}
	return "", ErrNotInModule
}

// importPath derives the package's import path from go.mod's module line, or
// returns "" if go.mod has none.
func importPath(gomod []byte, root, dir string) string {
	var module string
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			module = strings.Trim(fields[1], "\"`")
			break
		}
	}
	if module == "" {
		return ""
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return module
	}
	return path.Join(module, filepath.ToSlash(rel))
}
