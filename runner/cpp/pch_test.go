package cpp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShareable: a directory may share a precompiled header unless it
// holds an entry named as an element of the paths the build read.
func TestShareable(t *testing.T) {
	names := map[string]bool{"usr": true, "include": true, "c++": true, "12": true, "bits": true, "vector": true}
	tests := []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"empty", map[string]string{}, true},
		{"the user's own files", map[string]string{"util.h": "", "main.cc": "", "lib/x.h": ""}, true},
		{"a header of the block's name", map[string]string{"vector": ""}, false},
		{"a directory the headers include from", map[string]string{"bits/stl_vector.h": ""}, false},
		{"a directory of that name, empty of headers", map[string]string{"bits/README": ""}, false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeTree(t, dir, tt.files)
		if got := shareable(dir, names); got != tt.want {
			t.Errorf("%s: shareable = %v, want %v", tt.name, got, tt.want)
		}
	}
	if shareable(filepath.Join(t.TempDir(), "gone"), names) {
		t.Errorf("a directory that cannot be read is shareable")
	}
}

// TestPCHSharedAcrossDirectories: files of different directories with
// the same leading block and flags share one precompiled header, which
// g++ accepts; a directory holding a name the headers' paths have gets
// its own, built with the directory. Every check reports what the cold
// tools do.
func TestPCHSharedAcrossDirectories(t *testing.T) {
	need(t, "g++", "clang-tidy")
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	warm, cold := warmColdPair(t, "clang-tidy", pool)
	root := t.TempDir()
	const text = "#include <vector>\n\nint sum(const std::vector<int>& v) {\n  int s = 0;\n  for (int i = 0; i < (int)v.size(); i++) s += v[i];\n  return s;\n}\n"
	writeTree(t, root, map[string]string{
		"a/x.cc": text, "b/y.cc": text, "c/z.cc": text,
		"c/bits/README": "a directory named as libstdc++'s, which <vector> includes from",
	})
	steps := []struct {
		file    string
		used    int64 // g++ runs with a precompiled header so far
		entries int   // precompiled headers kept
	}{
		{"a/x.cc", 0, 1}, // builds the shared one
		{"a/x.cc", 1, 1},
		{"b/y.cc", 2, 1}, // another directory: the same one
		{"c/z.cc", 2, 2}, // a directory named "bits": its own, built now
		{"c/z.cc", 3, 2},
	}
	for i, s := range steps {
		diffPair(t, pool, warm, cold, filepath.Join(root, s.file), nil)
		pool.pch.mu.Lock()
		entries := len(pool.pch.entries)
		pool.pch.mu.Unlock()
		if used := pool.stats.pchUsed.Load(); used != s.used || entries != s.entries {
			t.Fatalf("check %d (%s): %d runs with a precompiled header, %d kept; want %d and %d", i+1, s.file, used, entries, s.used, s.entries)
		}
	}

	// g++ reads the shared header for b's file (-H marks a precompiled
	// header it uses with "!"), not the text of the block again.
	file := filepath.Join(root, "b", "y.cc")
	flags, _, _ := warm.compileFlags(file)
	ws, err := newWorkspace(file, []byte(text), nil, flags, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.cleanup()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Fatal(err)
	}
	args := pool.pch.pchArgs(warm.log, gxx, ws)
	if args == nil {
		t.Fatal("no precompiled header for b/y.cc")
	}
	if err := os.WriteFile(ws.tmpFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gxx, slices.Concat(ws.flags, args, []string{"-fsyntax-only", "-H", "-Winvalid-pch", ws.tmpFile})...)
	cmd.Dir = ws.src
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("g++ with the shared header: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "! ") || strings.Contains(string(out), "invalid") {
		t.Errorf("g++ did not use the shared precompiled header:\n%s", out)
	}
}
