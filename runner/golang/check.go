package golang

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner/golang/shortcut"
)

// parseMode is the mode go/packages parses with; the incremental path must
// parse the same way to produce the same diagnostics.
const parseMode = parser.AllErrors | parser.ParseComments

// A srcFile is one Go file of the analysed package: the text that was
// checked and its syntax.
type srcFile struct {
	name string
	src  []byte
	ast  *ast.File   // nil only if nothing could be parsed
	tok  *token.File // nil only if ast is nil
	errs scanner.ErrorList
	hdr  string // the header (see header), which stays when the syntax is dropped
	// dropped reports that the syntax was dropped to save memory; it is
	// parsed again when needed.
	dropped bool
	idents  map[string]bool // see identifiers
}

// withoutSyntax returns sf without its syntax and errors, which a later
// parse gives again; its token.File stays, for the positions of its
// package's types.
func (sf *srcFile) withoutSyntax() *srcFile {
	return &srcFile{name: sf.name, src: sf.src, tok: sf.tok, hdr: sf.hdr, dropped: true}
}

// parseSrc parses src as the file name into fset.
func parseSrc(fset *token.FileSet, name string, src []byte) *srcFile {
	f, err := parser.ParseFile(fset, name, src, parseMode)
	sf := &srcFile{name: name, src: src, ast: f}
	if f != nil {
		sf.tok = fset.File(f.FileStart)
		sf.hdr = header(f)
	}
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			sf.errs = list
		} else {
			sf.errs = scanner.ErrorList{{Pos: token.Position{Filename: name, Line: 1, Column: 1}, Msg: err.Error()}}
		}
	}
	return sf
}

// importPaths returns the import paths of the file, in order.
func (sf *srcFile) importPaths() []string {
	if sf.ast == nil {
		return nil
	}
	paths := make([]string, 0, len(sf.ast.Imports))
	for _, spec := range sf.ast.Imports {
		if p, err := strconv.Unquote(spec.Path.Value); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// header summarises what go list uses to place a file in a package: the
// package name and the build constraint lines.
func header(f *ast.File) string {
	var b strings.Builder
	if f.Name != nil {
		b.WriteString(f.Name.Name)
	}
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") || strings.HasPrefix(c.Text, "// +build") {
				b.WriteString("\n")
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// A rootSpec describes one package that a pass may check from source: a
// root (the package or its test variant, or the external test package), a
// dependency compiled against a root (a test variant), or a package of the
// workspace. It comes from the full load; the incremental path updates its
// files and imports when it can tell what go list would say.
type rootSpec struct {
	id, path, name string
	fileNames      []string                  // CompiledGoFiles, in order
	imports        map[string]*types.Package // import path -> types of a package that does not change
	importNode     map[string]*node          // import path -> a package that may be checked again
	importRoot     map[string]int            // import path -> index of another root (AnalyzeProject)
	importErrs     map[string]string         // import path -> go list error of that import
	depIllTyped    map[*types.Package]bool   // dependencies (of imports) that have errors
	listErrs       bool                      // go list reported errors for the package
	sizes          types.Sizes
	goVersion      string
	module         *analysis.Module
	otherFiles     []string
	ignoredFiles   []string
}

// checked is one type-checked root.
type checked struct {
	spec       *rootSpec
	files      []*srcFile
	pkg        *types.Package
	info       *types.Info
	typeErrors []types.Error
	illTyped   bool
}

func newTypesInfo() *types.Info {
	return &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Instances:    make(map[*ast.Ident]types.Instance),
		Scopes:       make(map[ast.Node]*types.Scope),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		FileVersions: make(map[*ast.File]string),
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// typeCheck checks the files of spec the way go/packages does, resolving
// imports of other roots to their freshly checked packages (prev).
func typeCheck(fset *token.FileSet, spec *rootSpec, files []*srcFile, prev []*checked) *checked {
	return typeCheckNode(fset, spec, files, prev, nil)
}

// typeCheckNode checks the files of spec the way go/packages does,
// resolving imports of packages that may be checked again through
// current, which returns their types and whether they have errors, and
// imports of other roots to prev.
func typeCheckNode(fset *token.FileSet, spec *rootSpec, files []*srcFile, prev []*checked, current func(*node) (*types.Package, bool)) *checked {
	c := &checked{spec: spec, files: files, info: newTypesInfo(), illTyped: spec.listErrs}
	var syntax []*ast.File
	for _, f := range files {
		if f.ast != nil {
			syntax = append(syntax, f.ast)
		}
		if len(f.errs) > 0 {
			c.illTyped = true
		}
	}
	illImports := make(map[*types.Package]bool)
	imp := importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if n := spec.importNode[path]; n != nil && current != nil {
			p, ill := current(n)
			if ill {
				illImports[p] = true
			}
			return p, nil
		}
		if i, ok := spec.importRoot[path]; ok && i < len(prev) {
			return prev[i].pkg, nil
		}
		if p := spec.imports[path]; p != nil {
			return p, nil
		}
		if msg, ok := spec.importErrs[path]; ok {
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("no metadata for %s", path)
	})
	cfg := &types.Config{
		Importer: imp,
		Sizes:    spec.sizes,
		Error: func(err error) {
			if terr, ok := err.(types.Error); ok {
				c.typeErrors = append(c.typeErrors, terr)
			}
		},
		GoVersion: spec.goVersion,
	}
	c.pkg = types.NewPackage(spec.path, spec.name)
	err := types.NewChecker(cfg, fset, c.pkg, c.info).Files(syntax)
	if err != nil && len(c.typeErrors) == 0 && len(syntax) > 0 {
		// An error not passed to cfg.Error, such as "package requires
		// newer Go version".
		c.typeErrors = append(c.typeErrors, types.Error{Fset: fset, Pos: syntax[0].Package, Msg: err.Error()})
	}
	if len(c.typeErrors) > 0 {
		c.illTyped = true
	}
	for _, p := range c.pkg.Imports() {
		if spec.depIllTyped[p] || illImports[p] {
			c.illTyped = true
		}
	}
	for _, p := range prev {
		if p.illTyped && slices.Contains(c.pkg.Imports(), p.pkg) {
			c.illTyped = true
		}
	}
	return c
}

// subset returns u restricted to what r leaves of files (of all, its
// files in order) for the file-local checks (see shortcut.Reuse.Restrict).
func (u *unit) subset(all []*srcFile, r *shortcut.Reuse) *unit {
	sub := *u
	sub.files, sub.parent = nil, u
	for _, f := range all {
		if f.ast == nil {
			continue
		}
		if af := r.Restrict(f.name, f.ast); af != nil {
			sub.files = append(sub.files, af)
		}
	}
	return &sub
}

// unit returns the analysis unit for a checked root.
func (c *checked) unit(fset *token.FileSet, readFile func(string) ([]byte, error)) *unit {
	syntax := make([]*ast.File, 0, len(c.files))
	for _, f := range c.files {
		if f.ast != nil {
			syntax = append(syntax, f.ast)
		}
	}
	return &unit{
		fset:         fset,
		pkg:          c.pkg,
		files:        syntax,
		info:         c.info,
		sizes:        c.spec.sizes,
		typeErrors:   c.typeErrors,
		illTyped:     c.illTyped,
		module:       c.spec.module,
		otherFiles:   c.spec.otherFiles,
		ignoredFiles: c.spec.ignoredFiles,
		readFile:     readFile,
	}
}

// identifiers returns the names a file mentions (lazily, once).
func (sf *srcFile) identifiers() map[string]bool {
	if sf.idents == nil && sf.ast != nil {
		sf.idents = make(map[string]bool)
		ast.Inspect(sf.ast, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				sf.idents[id.Name] = true
			}
			return true
		})
	}
	return sf.idents
}
