package golang

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"go/token"
	"go/types"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/objectpath"
)

// depCacheVersion names the encoding of cache entries and the rules by
// which the driver computes facts; change it when either changes.
const depCacheVersion = "fixloop go deps 1"

// A depCache keeps, on disk, what the analysis of a dependency produces:
// its types, as export data, and the facts that the fact-producing
// analyzers exported about it. A package's entry is found by a key that
// hashes everything the entry depends on: the analyzers (and the versions
// of the modules that provide them), the Go version the analyzer was built
// with, the package's identity and configuration, the contents of its
// compiled Go files, and the keys of its imports. So an entry never goes
// stale; it is just no longer asked for. Only packages that do not belong
// to the workspace (the standard library and the module cache) are cached,
// since workspace packages change all the time.
//
// With a warm cache, the first analysis of a package type-checks and
// analyses only the packages of the workspace: for the standard library it
// decodes export data and facts, which takes a fraction of the time and
// memory of type-checking and analysing it.
type depCache struct {
	dir  string
	tool []byte // hash of the analyzers and their versions
	log  *slog.Logger
}

type cacheKey [sha256.Size]byte

// newDepCache returns a cache in dir, or nil if dir cannot be used.
func newDepCache(dir string, analyzers []*analysis.Analyzer, log *slog.Logger) *depCache {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Debug("dependency cache disabled", "dir", dir, "error", err)
		return nil
	}
	return &depCache{dir: dir, tool: toolHash(analyzers), log: log}
}

// defaultCacheDir is where AnalyzerOptions.CacheDir "" puts the cache.
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fixloop", "go-analysis")
}

// toolHash identifies the fact-producing analyzers: their names and fact
// types, the modules that provide them and the Go release that the
// analyzer (and go/types) was built with. A module replaced by a local
// directory has no version, so then the executable itself is hashed in.
func toolHash(analyzers []*analysis.Analyzer) []byte {
	h := sha256.New()
	fmt.Fprintln(h, depCacheVersion)
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, a := range analyzers {
		fmt.Fprintln(h, "analyzer", a.Name)
		for _, f := range a.FactTypes {
			fmt.Fprintf(h, "  fact %T\n", f)
		}
	}
	exact := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		exact = true
		for _, m := range bi.Deps {
			if r := m.Replace; r != nil {
				m = r
			}
			fmt.Fprintln(h, "module", m.Path, m.Version, m.Sum)
			if m.Sum == "" && (strings.HasPrefix(m.Path, "golang.org/x/tools") || strings.HasPrefix(m.Path, "honnef.co/go/tools")) {
				exact = false
			}
		}
	}
	if !exact {
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				fmt.Fprintln(h, "executable", exe, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return h.Sum(nil)
}

// key computes the cache key of package p from its files' contents and its
// imports' keys.
func (c *depCache) key(p *packages.Package, srcs [][]byte, importKeys func(*packages.Package) cacheKey) cacheKey {
	h := sha256.New()
	h.Write(c.tool)
	fmt.Fprintf(h, "package %q %q %q\n", p.ID, p.PkgPath, p.Name)
	fmt.Fprintf(h, "sizes %v\n", p.TypesSizes)
	if p.Module != nil {
		fmt.Fprintf(h, "module %q %q %q\n", p.Module.Path, p.Module.Version, p.Module.GoVersion)
	}
	for i, name := range p.CompiledGoFiles {
		sum := sha256.Sum256(srcs[i])
		fmt.Fprintf(h, "file %q %x\n", name, sum)
	}
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		ip := p.Imports[path]
		if ip.PkgPath == "unsafe" {
			fmt.Fprintf(h, "import %q unsafe\n", path)
			continue
		}
		fmt.Fprintf(h, "import %q %x\n", path, importKeys(ip))
	}
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// outsideWorkspace reports whether p's files cannot be edited by the user:
// p is in the standard library or in a module from the module cache.
func outsideWorkspace(p *packages.Package) bool {
	m := p.Module
	if m == nil {
		return true // standard library (or GOPATH mode, where files are hashed all the same)
	}
	if m.Replace != nil {
		m = m.Replace
	}
	return m.Version != ""
}

func (c *depCache) path(k cacheKey) string {
	name := hex.EncodeToString(k[:])
	return filepath.Join(c.dir, name[:2], name+"-d")
}

// get returns the entry for k, or nil.
func (c *depCache) get(k cacheKey) []byte {
	name := c.path(k)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	// The entry ends with a hash of the rest, in case the file is damaged.
	n := len(data) - sha256.Size
	if n < 0 || sha256.Sum256(data[:n]) != [sha256.Size]byte(data[n:]) {
		c.log.Debug("damaged dependency cache entry", "file", name)
		return nil
	}
	data = data[:n:n]
	// Entries that are used stay; see trim.
	if fi, err := os.Stat(name); err == nil && time.Since(fi.ModTime()) > time.Hour {
		now := time.Now()
		_ = os.Chtimes(name, now, now)
	}
	return data
}

// put stores an entry for k, atomically: readers see all of it or none.
func (c *depCache) put(k cacheKey, data []byte) {
	name := c.path(k)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		c.log.Debug("writing dependency cache", "error", err)
		return
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		c.log.Debug("writing dependency cache", "error", err)
		return
	}
	sum := sha256.Sum256(data)
	_, err = f.Write(append(data[:len(data):len(data)], sum[:]...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		c.log.Debug("writing dependency cache", "error", err)
	}
}

// trimAge is how long an unused entry stays in the cache.
const trimAge = 14 * 24 * time.Hour

// trim deletes entries not used for trimAge, at most once a day (a stamp
// file records when it last ran).
func (c *depCache) trim() {
	stamp := filepath.Join(c.dir, "trimmed")
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < 24*time.Hour {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		return
	}
	cutoff := time.Now().Add(-trimAge)
	_ = filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == stamp {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(path)
		}
		return nil
	})
}

// A depEntry is what the cache holds for one package.
type depEntry struct {
	Version string
	Export  []byte // gcexportdata
	Facts   []analyzerEntry
}

// analyzerEntry holds the facts one analyzer exported about the package.
type analyzerEntry struct {
	Analyzer string
	Failed   bool
	Types    []factsOfType
}

// factsOfType holds the facts of one type: Paths[i] is the object path of
// the i-th fact ("" for a package fact) and Data the gob encoding of the
// facts, in order.
type factsOfType struct {
	Type  int // index in the analyzer's FactTypes
	Paths []string
	Data  []byte
}

// encodeEntry encodes pkg's types and the facts about it that the store
// holds for analyzers.
func encodeEntry(fset *token.FileSet, pkg *types.Package, store *factStore, analyzers []*analysis.Analyzer) ([]byte, error) {
	var export bytes.Buffer
	if err := gcexportdata.Write(&export, fset, pkg); err != nil {
		return nil, fmt.Errorf("writing export data: %w", err)
	}
	entry := depEntry{Version: depCacheVersion, Export: export.Bytes()}
	var enc objectpath.Encoder
	for _, a := range analyzers {
		af := store.get(a, pkg)
		if af == nil {
			continue
		}
		ae := analyzerEntry{Analyzer: a.Name, Failed: af.failed}
		for ti, factType := range a.FactTypes {
			typ := reflect.TypeOf(factType)
			var ft factsOfType
			var data bytes.Buffer
			genc := gob.NewEncoder(&data)
			if f, ok := af.packages[typ]; ok {
				if err := genc.Encode(f); err != nil {
					return nil, fmt.Errorf("encoding fact %T of %s: %w", f, a.Name, err)
				}
				ft.Paths = append(ft.Paths, "")
			}
			// Sorted, so that equal inputs give equal entries.
			type objFact struct {
				path string
				fact analysis.Fact
			}
			var facts []objFact
			for k, f := range af.objects {
				if k.typ != typ {
					continue
				}
				path, err := enc.For(k.obj)
				if err != nil {
					continue // not reachable from the package's API: no importer can see it
				}
				facts = append(facts, objFact{string(path), f})
			}
			slices.SortFunc(facts, func(x, y objFact) int { return strings.Compare(x.path, y.path) })
			for _, of := range facts {
				if err := genc.Encode(of.fact); err != nil {
					return nil, fmt.Errorf("encoding fact %T of %s: %w", of.fact, a.Name, err)
				}
				ft.Paths = append(ft.Paths, of.path)
			}
			if len(ft.Paths) > 0 {
				ft.Type, ft.Data = ti, data.Bytes()
				ae.Types = append(ae.Types, ft)
			}
		}
		if ae.Failed || len(ae.Types) > 0 {
			entry.Facts = append(entry.Facts, ae)
		}
	}
	var out bytes.Buffer
	if err := gob.NewEncoder(&out).Encode(&entry); err != nil {
		return nil, fmt.Errorf("encoding cache entry: %w", err)
	}
	return out.Bytes(), nil
}

// decodedEntry is a package's types and facts, decoded from an entry.
type decodedEntry struct {
	pkg   *types.Package
	facts map[*analysis.Analyzer]*actionFacts
}

// decodeEntry decodes an entry for the package at path. The export data is
// read against imports (path -> package, already decoded), to which the
// new package is added; byName finds the analyzers.
func decodeEntry(data []byte, fset *token.FileSet, imports map[string]*types.Package, path string, byName map[string]*analysis.Analyzer) (*decodedEntry, error) {
	var entry depEntry
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&entry); err != nil {
		return nil, fmt.Errorf("decoding cache entry: %w", err)
	}
	if entry.Version != depCacheVersion {
		return nil, fmt.Errorf("cache entry has version %q, want %q", entry.Version, depCacheVersion)
	}
	// Decode the facts first: on an error, imports is left as it was.
	type pending struct {
		af    *actionFacts
		typ   reflect.Type
		paths []string
		facts []analysis.Fact
	}
	var todo []pending
	out := &decodedEntry{facts: make(map[*analysis.Analyzer]*actionFacts)}
	for _, ae := range entry.Facts {
		a := byName[ae.Analyzer]
		if a == nil {
			return nil, fmt.Errorf("cache entry has facts of unknown analyzer %q", ae.Analyzer)
		}
		af := &actionFacts{
			objects:  make(map[objectFactKey]analysis.Fact),
			packages: make(map[reflect.Type]analysis.Fact),
			failed:   ae.Failed,
		}
		out.facts[a] = af
		for _, ft := range ae.Types {
			if ft.Type < 0 || ft.Type >= len(a.FactTypes) {
				return nil, fmt.Errorf("cache entry has fact type %d of analyzer %s, which has %d", ft.Type, a.Name, len(a.FactTypes))
			}
			typ := reflect.TypeOf(a.FactTypes[ft.Type])
			dec := gob.NewDecoder(bytes.NewReader(ft.Data))
			p := pending{af: af, typ: typ, paths: ft.Paths}
			for range ft.Paths {
				v := reflect.New(typ.Elem())
				if err := dec.DecodeValue(v); err != nil {
					return nil, fmt.Errorf("decoding fact %v of %s: %w", typ, a.Name, err)
				}
				p.facts = append(p.facts, v.Interface().(analysis.Fact))
			}
			todo = append(todo, p)
		}
	}
	pkg, err := gcexportdata.Read(bytes.NewReader(entry.Export), fset, imports, path)
	if err != nil {
		delete(imports, path)
		return nil, fmt.Errorf("reading export data: %w", err)
	}
	out.pkg = pkg
	for _, p := range todo {
		for i, path := range p.paths {
			if path == "" {
				p.af.packages[p.typ] = p.facts[i]
				continue
			}
			obj, err := objectpath.Object(pkg, objectpath.Path(path))
			if err != nil {
				continue // an unexported object that the export data leaves out
			}
			p.af.objects[objectFactKey{obj, p.typ}] = p.facts[i]
		}
	}
	return out, nil
}
