// Package shortcut holds what lets an incremental pass of the Go engine
// (package golang) skip part of a root's analysis, or carry over what the
// root's last check found: file-local checks run on the changed files
// only (filelocal.go), findings kept for the declarations an edit left
// alone (kept.go), and a partial IR, a copy of staticcheck's buildir that
// builds the changed functions only (ir.go). Each rests on a reading of
// what the checks of staticcheck and x/tools read, in the versions named
// by auditedModules: with others the shortcuts are off (Audit), and the
// engine checks whole packages.
//
// The engine asks one question, Gate.Ask: what may this pass of a root
// skip or carry over. Its answer, a *Reuse (nil: nothing, the full path),
// is what the rest of the pass consults. The engine records, at every
// check of a root, the Notes that a later answer needs. This package knows
// nothing of the engine's types.
package shortcut

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"honnef.co/go/tools/go/ir"
)

// auditedModules are the versions of the modules whose checks the
// shortcuts of incremental passes were read against: which checks are
// file-local (filelocal.go), which findings a declaration keeps
// (kept.go), what each IR check and fact analyzer reads and the
// internal IR result built for a partial IR (ir.go). Another
// version may read more, or name its fields otherwise, so with it the
// shortcuts are off and every pass runs the checks on the whole package.
// Bumping one of these means reading those files' lists again.
var auditedModules = map[string]string{
	"honnef.co/go/tools": "v0.8.2",
	"golang.org/x/tools": "v0.52.0",
}

// BuildModules returns the versions of the modules compiled into the
// binary, by module path (a replaced module's version is its
// replacement's, with "=> " and its path before it when that differs).
// Test binaries record no dependencies in their build information: for
// the audited modules it then reads the version in the path of a source
// file of theirs compiled in (module@version/..., in the module cache or
// with -trimpath); a module vendored or replaced by a directory has none.
func BuildModules() map[string]string {
	out := make(map[string]string)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			v := d.Version
			if r := d.Replace; r != nil {
				v = r.Version
				if r.Path != d.Path {
					v = "=> " + r.Path + " " + r.Version
				}
			}
			out[d.Path] = v
		}
	}
	for path, fn := range map[string]any{"honnef.co/go/tools": ir.NewProgram, "golang.org/x/tools": analysis.Validate} {
		if _, ok := out[path]; ok {
			continue
		}
		if v, ok := sourceVersion(path, fn); ok {
			out[path] = v
		}
	}
	return out
}

// sourceVersion returns the version of module path in the name of the
// source file of function fn, if there is one.
func sourceVersion(path string, fn any) (string, bool) {
	pc := reflect.ValueOf(fn).Pointer()
	f := runtime.FuncForPC(pc)
	if f == nil {
		return "", false
	}
	file, _ := f.FileLine(pc)
	file = filepath.ToSlash(file)
	_, rest, ok := strings.Cut(file, path+"@")
	if !ok {
		return "", false
	}
	v, _, ok := strings.Cut(rest, "/")
	return v, ok && v != ""
}

// A Gate says whether an Analyzer's incremental passes may take
// shortcuts (file-local reuse, kept declarations, a partial IR), and if
// not, why.
type Gate struct {
	On  bool
	Why string // when off
}

// Audit turns the shortcuts on when built (module path to version, see
// BuildModules) has the audited versions of auditedModules.
func Audit(built map[string]string) Gate {
	var why []string
	for _, path := range slices.Sorted(maps.Keys(auditedModules)) {
		want := auditedModules[path]
		switch have, ok := built[path]; {
		case !ok:
			why = append(why, fmt.Sprintf("%s: version unknown, audited %s", path, want))
		case have != want:
			why = append(why, fmt.Sprintf("%s %s, audited %s", path, have, want))
		}
	}
	if len(why) > 0 {
		return Gate{Why: strings.Join(why, "; ")}
	}
	return Gate{On: true}
}

// field returns v's field name, when v is a struct, or a non-nil pointer
// to one, with such a field that can be read; otherwise ok is false. It
// never panics, so that a field renamed in another version of a module
// turns a shortcut off instead of failing the analysis.
func field(v reflect.Value, name string) (f reflect.Value, ok bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f = v.FieldByName(name)
	if !f.IsValid() || !f.CanInterface() {
		return reflect.Value{}, false
	}
	return f, true
}

// fieldAs is field for a field of type T.
func fieldAs[T any](v reflect.Value, name string) (T, bool) {
	var zero T
	f, ok := field(v, name)
	if !ok || f.Type() != reflect.TypeFor[T]() {
		return zero, false
	}
	t, ok := f.Interface().(T)
	return t, ok
}
