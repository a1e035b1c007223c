package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadText(path, map[string][]byte{path: []byte("edited")}); err != nil || string(got) != "edited" {
		t.Errorf("with an overlay: %q, %v; want the overlay's text", got, err)
	}
	if got, err := ReadText(path, map[string][]byte{"other": nil}); err != nil || string(got) != "disk" {
		t.Errorf("without: %q, %v; want the file's text", got, err)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := ReadText(missing, nil); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "reading "+missing+": ") {
		t.Errorf("a missing file: %v", err)
	}
}
