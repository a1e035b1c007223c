package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewRefusesRoot(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "slash")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		paths   []string
		want    []string
		refused int
	}{
		{"a folder", []string{dir}, []string{dir}, 0},
		{"root", []string{"/"}, nil, 1},
		{"root spelled otherwise", []string{"/./", "//"}, nil, 2},
		{"a link to root", []string{link}, nil, 1},
		{"relative", []string{"proj"}, nil, 1},
		{"duplicates", []string{dir, dir + "/"}, []string{dir}, 0},
		{"none", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, refused := New(tt.paths)
			if got := f.Paths(); strings.Join(got, ",") != strings.Join(tt.want, ",") || len(refused) != tt.refused {
				t.Errorf("New(%q) = %q, refused %q", tt.paths, got, refused)
			}
		})
	}
}

func TestContains(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	other := filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(ws, "pkg"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(other, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(ws, "slash")); err != nil {
		t.Fatal(err)
	}
	f, _ := New([]string{ws})
	tests := []struct {
		path string
		want bool
	}{
		{ws, true},
		{filepath.Join(ws, "pkg", "a.py"), true},
		{filepath.Join(ws, "new", "unsaved.py"), true},
		{filepath.Join(ws, "..", "other", "a.py"), false},
		{filepath.Join(other, "a.py"), false},
		{filepath.Join(ws, "out", "a.py"), false}, // a link out of the folder
		{filepath.Join(ws, "slash", "etc", "passwd"), false},
		{base, false},
		{"/x.py", false},
		{"/", false},
		{"relative.py", false},
		{ws + "2/a.py", false},
	}
	for _, tt := range tests {
		if got := f.Contains(tt.path); got != tt.want {
			t.Errorf("Contains(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	var none Folders
	if none.Contains(filepath.Join(ws, "pkg", "a.py")) || !none.Empty() {
		t.Errorf("no folders: a file is inside")
	}
}

func TestCheckCopy(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(ws, "slash")); err != nil {
		t.Fatal(err)
	}
	f, _ := New([]string{ws})
	ctx := WithFolders(context.Background(), func() Folders { return f })
	got, ok := FromContext(ctx)
	if !ok || got.Paths()[0] != ws {
		t.Fatalf("FromContext = %v, %v", got.Paths(), ok)
	}
	if _, ok := FromContext(context.Background()); ok {
		t.Errorf("FromContext of a bare context: folders")
	}
	tests := []struct {
		dir, wantErr string
	}{
		{filepath.Join(ws, "proj"), ""},
		{ws, ""},
		{"/", "file system root"},
		{filepath.Join(ws, "slash"), "file system root"},
		{base, "not inside a workspace folder"},
		{"/etc", "not inside a workspace folder"},
	}
	for _, tt := range tests {
		err := f.CheckCopy(tt.dir)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("CheckCopy(%s) = %v, want %q", tt.dir, err, tt.wantErr)
		}
	}
	for _, d := range []string{"/", "/.", filepath.Join(ws, "slash")} {
		if err := CheckNotRoot(d); err == nil {
			t.Errorf("CheckNotRoot(%s) = nil", d)
		}
	}
}
