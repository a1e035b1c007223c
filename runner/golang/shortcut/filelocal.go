package shortcut

import (
	"go/constant"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner"
)

// fileLocalChecks are the checks whose diagnostics in a file depend only on
// that file's syntax and the types of what it refers to: each matches a
// pattern at one node (a call, an expression, a statement, one loop or
// function body) using the file's type information, and keeps no state
// across nodes, looks nothing up in the package's scope by name, reads no
// other file, uses no facts and no intermediate representation. Each was
// read for this (staticcheck v0.8.2, x/tools v0.52.0: auditedModules, off
// with other versions); together they are about 45% of the analyzers' time
// on ../testdata/benchpkg. Their prerequisites (inspect, typeindex,
// isgenerated, tokenfileanalyzer) index the files of the pass only.
// TestFileLocalChecks keeps the list honest about what they require.
//
// When an incremental pass checks a root again, these run on the changed
// files only, and their diagnostics in the other files are those of the
// last check, if the types those files see cannot have changed (see
// Gate.Ask). Everything else runs on the whole package.
var fileLocalChecks = map[string]bool{
	// staticcheck
	"QF1001": true, "QF1002": true, "QF1003": true, "QF1004": true, "QF1005": true, "QF1006": true,
	"QF1007": true, "QF1008": true, "QF1009": true, "QF1010": true, "QF1011": true, "QF1012": true,
	"S1000": true, "S1001": true, "S1002": true, "S1003": true, "S1004": true, "S1005": true,
	"S1006": true, "S1007": true, "S1008": true, "S1009": true, "S1010": true, "S1012": true,
	"S1016": true, "S1017": true, "S1018": true, "S1019": true, "S1020": true, "S1021": true,
	"S1023": true, "S1024": true, "S1028": true, "S1030": true, "S1031": true, "S1032": true,
	"S1033": true, "S1034": true, "S1035": true, "S1036": true, "S1037": true, "S1038": true,
	"S1039": true, "S1040": true,
	"SA1001": true, "SA1004": true, "SA1005": true, "SA1006": true, "SA1008": true, "SA1012": true,
	"SA1013": true, "SA1016": true, "SA2000": true, "SA2001": true, "SA3001": true, "SA4000": true,
	"SA4001": true, "SA4003": true, "SA4004": true, "SA4011": true, "SA4013": true, "SA4014": true,
	"SA4019": true, "SA4020": true, "SA4021": true, "SA4022": true, "SA4024": true, "SA4025": true,
	"SA4026": true, "SA4027": true, "SA4028": true, "SA4029": true, "SA4030": true, "SA4032": true,
	"SA5001": true, "SA5002": true, "SA5003": true, "SA5004": true, "SA6005": true, "SA6006": true,
	"SA9001": true, "SA9002": true, "SA9004": true, "SA9006": true, "SA9009": true, "SA9010": true,
	"ST1001": true, "ST1003": true, "ST1011": true, "ST1012": true, "ST1013": true, "ST1015": true,
	"ST1017": true, "ST1018": true, "ST1019": true, "ST1020": true, "ST1021": true, "ST1022": true,
	// go vet
	"appends": true, "assign": true, "atomic": true, "bools": true, "composites": true, "copylocks": true,
	"defers": true, "errorsas": true, "httpresponse": true, "ifaceassert": true, "loopclosure": true,
	"nilfunc": true, "shift": true, "sigchanyzer": true, "slog": true, "stdmethods": true,
	"stdversion": true, "stringintconv": true, "structtag": true, "timeformat": true, "unmarshal": true,
	"unreachable": true, "unsafeptr": true, "unusedresult": true, "waitgroup": true,
}

// fileLocalPrereqs are the only analyzers fileLocalChecks may require.
// config (staticcheck's configuration, for ST1001, ST1003, ST1013) is
// that of the package's directory: a pass that reads staticcheck.conf
// again reuses nothing (see Gate.Ask).
var fileLocalPrereqs = map[string]bool{"inspect": true, "typeindex": true, "isgenerated": true, "tokenfileanalyzer": true, "config": true}

// LocalPrereq reports whether the file-local checks may run analyzer name
// on the files they run on (see Reuse.Restrict): otherwise it runs on
// the whole package.
func LocalPrereq(name string) bool { return fileLocalPrereqs[name] }

// IsFileLocal reports whether a is one of fileLocalChecks.
func IsFileLocal(a *analysis.Analyzer) bool { return fileLocalChecks[a.Name] && len(a.FactTypes) == 0 }

// declPrints describes each package-level object of pkg without positions:
// its kind and type, a constant's value, a type's underlying type and
// methods. A file that does not change sees the same types from one check
// to the next if these are the same, but for objects that were added or
// removed, and it names none of those.
func declPrints(pkg *types.Package) map[string]string {
	qual := func(p *types.Package) string { return p.Path() }
	scope := pkg.Scope()
	out := make(map[string]string, scope.Len())
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		s := types.ObjectString(obj, qual)
		switch obj := obj.(type) {
		case *types.Const:
			s += " = " + obj.Val().ExactString()
			if obj.Val().Kind() == constant.Unknown {
				s += " (unknown)"
			}
		case *types.TypeName:
			s += " = " + types.TypeString(obj.Type().Underlying(), qual)
			if named, ok := obj.Type().(*types.Named); ok {
				for m := range named.Methods() {
					_, ptr := m.Signature().Recv().Type().(*types.Pointer)
					s += "\n method " + m.Name() + " " + types.TypeString(m.Type(), qual)
					if ptr {
						s += " (pointer receiver)"
					}
				}
			}
		}
		out[name] = s
	}
	return out
}

// changedNames returns the names declared in one of old and now only.
func changedNames(old, now map[string]string) map[string]bool {
	out := make(map[string]bool)
	for name := range now {
		if _, ok := old[name]; !ok {
			out[name] = true
		}
	}
	for name := range old {
		if _, ok := now[name]; !ok {
			out[name] = true
		}
	}
	return out
}

// reusable returns the files whose file-local diagnostics the last
// check's stand for, given the notes of the last check and of this one
// (now), which the engine asks about only if neither check found errors
// (a file's type information is then complete and its analyzers ran),
// the files are the same, and every import looks to importers as it did
// (see Gate.Ask): none if a package-level declaration changed, but for
// added or removed names; otherwise each file that did not change,
// mentions none of those names, and whose diagnostics refer to no other
// file.
func reusable(last, now *Notes, files []File) map[string]bool {
	for name, p := range now.prints {
		if old, ok := last.prints[name]; ok && old != p {
			return nil // a declaration changed
		}
	}
	changedNames := changedNames(last.prints, now.prints)
	out := make(map[string]bool)
	for _, f := range files {
		if !f.Same || last.localForeign[f.Name] {
			continue
		}
		if _, ok := last.local[f.Name]; !ok {
			continue
		}
		mentions := false
		idents := f.Idents()
		for name := range changedNames {
			if idents[name] {
				mentions = true
				break
			}
		}
		if !mentions {
			out[f.Name] = true
		}
	}
	return out
}

// splitLocal sorts the file-local alerts by file, each of files having
// an entry, and says, per file, whether any refers to another file.
func splitLocal(alerts []runner.Alert, files []string) (map[string][]runner.Alert, map[string]bool) {
	local := make(map[string][]runner.Alert, len(files))
	for _, name := range files {
		local[name] = nil
	}
	foreign := make(map[string]bool)
	for _, al := range alerts {
		local[al.File] = append(local[al.File], al)
		if foreignRef.MatchString(al.Message) {
			foreign[al.File] = true
		}
		for _, r := range al.Related {
			if r.File != al.File {
				foreign[al.File] = true
			}
		}
		for _, fx := range al.Fixes {
			for _, e := range fx.Edits {
				if e.File != al.File {
					foreign[al.File] = true
				}
			}
		}
	}
	return local, foreign
}

// fileRefs returns, per file of alerts, the other files they refer to
// (related information, fixes); "" stands for a position written into a
// message, which may be in any file.
func fileRefs(alerts []runner.Alert) map[string]map[string]bool {
	out := make(map[string]map[string]bool)
	add := func(from, to string) {
		if from == to {
			return
		}
		if out[from] == nil {
			out[from] = make(map[string]bool)
		}
		out[from][to] = true
	}
	for _, al := range alerts {
		if foreignRef.MatchString(al.Message) {
			add(al.File, "")
		}
		for _, r := range al.Related {
			add(al.File, r.File)
		}
		for _, fx := range al.Fixes {
			for _, e := range fx.Edits {
				add(al.File, e.File)
			}
		}
	}
	return out
}

// foreignRef matches a file position in a message ("x.go:12").
var foreignRef = regexp.MustCompile(`\.go:\d+`)
