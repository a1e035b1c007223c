package golang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// A recording is a sequence of edits made in an editor on packages of a
// module (testdata/recordings).
type recording struct {
	Module, Version string
	Packages        []string
	Steps           []struct {
		Name    string
		File    string
		Find    string
		Replace string
		Save    bool
		Create  *string
		Revert  string // "file" or "all"
		Analyse []string
		// Expect lists alerts that the step's analyses must include, as
		// "file source [code]".
		Expect []string
	}
}

// TestDifferentialRecording replays recorded edits of real code (packages
// of golang.org/x/tools, from the module cache, where building fixloop put
// it) and after every step checks that the long-lived Analyzer's
// incremental results equal a from-scratch analysis of the same texts,
// and that no step needed a full load: with the default checks and with
// every check on.
func TestDifferentialRecording(t *testing.T) {
	for _, checks := range [][]string{nil, {"all"}} {
		t.Run(fmt.Sprint(checks), func(t *testing.T) { differentialRecording(t, AnalyzerOptions{Checks: checks}) })
	}
}

func differentialRecording(t *testing.T, opts AnalyzerOptions) {
	data, err := os.ReadFile(filepath.Join("testdata", "recordings", "xtools-edits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recording
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-json", rec.Module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", rec.Module, err)
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("no directory for %s in the module cache: %v %s", rec.Module, err, out)
	}
	if mod.Version != rec.Version {
		t.Fatalf("the recording is of %s %s, the module cache has %s: record the edits again on the new version", rec.Module, rec.Version, mod.Version)
	}
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(mod.Dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go [0-9.]+$`).Find(gomod)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+rec.Module+"\n\n"+string(goLine)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range rec.Packages {
		copyDir(t, filepath.Join(mod.Dir, p), filepath.Join(dir, p))
	}
	original := func(name string) []byte {
		src, err := os.ReadFile(filepath.Join(mod.Dir, name))
		if err != nil {
			return nil // a file the recording created
		}
		return src
	}

	a := newAnalyzer(t, opts)
	if !a.shortcuts.On {
		t.Fatalf("the shortcuts are off (%s): the recording would not check them", a.shortcuts.Why)
	}
	overlay := make(map[string][]byte) // the editor's unsaved texts
	onDisk := make(map[string]bool)    // files the recording wrote
	text := func(name string) []byte {
		if src, ok := overlay[name]; ok {
			return src
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	revert := func(name string) {
		delete(overlay, name)
		if !onDisk[name] {
			return
		}
		rel, _ := filepath.Rel(dir, name)
		if src := original(rel); src != nil {
			writeFile(t, name, string(src))
		} else if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
		delete(onDisk, name)
	}
	for i, s := range rec.Steps {
		file := filepath.Join(dir, filepath.FromSlash(s.File))
		switch {
		case s.Revert == "all":
			for name := range overlay {
				revert(name)
			}
			for name := range onDisk {
				revert(name)
			}
		case s.Revert == "file":
			revert(file)
		case s.Create != nil:
			overlay[file] = []byte(*s.Create)
		case s.Save:
			writeFile(t, file, string(text(file)))
			onDisk[file] = true
			delete(overlay, file)
		case s.Find != "":
			src := text(file)
			if bytes.Count(src, []byte(s.Find)) != 1 {
				t.Fatalf("step %d (%s): %q is not in %s exactly once", i, s.Name, s.Find, s.File)
			}
			overlay[file] = bytes.Replace(src, []byte(s.Find), []byte(s.Replace), 1)
		}
		seen := make(map[string]bool)
		for _, name := range s.Analyse {
			target := filepath.Join(dir, filepath.FromSlash(name))
			before := a.Stats()
			got := analyze(t, a, target, overlay)
			for _, al := range got.Alerts {
				rel, _ := filepath.Rel(dir, al.File)
				rel = filepath.ToSlash(rel)
				seen[rel+" "+al.Source] = true
				seen[rel+" "+al.Source+" "+al.Code] = true
			}
			if i > 0 && a.Stats().FullLoads != before.FullLoads {
				t.Errorf("step %d (%s), %s: a full load (%v)", i, s.Name, name, a.FallbackReasons())
			}
			want := fullResultWith(t, opts, target, overlay)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("step %d (%s), %s: incremental and full results differ", i, s.Name, name)
				sameResults(t, got, want)
			}
		}
		for _, e := range s.Expect {
			if !seen[e] {
				t.Errorf("step %d (%s): no alert %q", i, s.Name, e)
			}
		}
	}
	st := a.Stats()
	t.Logf("%+v", st)
	if st.IncrementalPasses == 0 {
		t.Error("no incremental pass")
	}
	if st.PartialIR == 0 {
		t.Error("no pass built a partial IR")
	}
	if st.DeclsKept == 0 {
		t.Error("no declaration of a changed file was kept")
	}
	if st.RootsRestored == 0 {
		t.Error("no root was restored from its memo: the undone renames should have taken the dependent's state back")
	}
}
