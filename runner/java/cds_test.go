package java

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCDSFlags(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FIXLOOP_JAVA_CDS", dir)
	key := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(key, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}

	flags, done := cdsFlags("javac", key)
	if len(flags) != 2 || flags[0] != "-Xlog:disable" || !strings.HasPrefix(flags[1], "-XX:ArchiveClassesAtExit="+dir) {
		t.Fatalf("first run flags = %v, want to write an archive", flags)
	}
	// The JVM writes the archive at exit; done moves it into place.
	tmp := strings.TrimPrefix(flags[1], "-XX:ArchiveClassesAtExit=")
	if err := os.WriteFile(tmp, []byte("archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	done()
	flags, _ = cdsFlags("javac", key)
	if len(flags) != 2 || !strings.HasPrefix(flags[1], "-XX:SharedArchiveFile="+dir) {
		t.Fatalf("second run flags = %v, want to read the archive", flags)
	}
	if got := withJ(flags); got[1] != "-J"+flags[1] {
		t.Errorf("withJ = %v", got)
	}

	// Another tool version: another archive.
	if err := os.WriteFile(key, []byte("version 2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if flags, _ := cdsFlags("javac", key); !strings.HasPrefix(flags[1], "-XX:ArchiveClassesAtExit=") {
		t.Errorf("after an upgrade flags = %v, want a new archive", flags)
	}
	// A run that wrote nothing leaves nothing behind.
	flags, done = cdsFlags("checkstyle", key)
	done()
	if _, err := os.Stat(strings.TrimPrefix(flags[1], "-XX:ArchiveClassesAtExit=")); !os.IsNotExist(err) {
		t.Errorf("an empty archive was left: %v", err)
	}

	if flags, _ := cdsFlags("javac", filepath.Join(dir, "missing")); flags != nil {
		t.Errorf("missing key file: flags = %v", flags)
	}
	t.Setenv("FIXLOOP_JAVA_CDS", "off")
	if flags, _ := cdsFlags("javac", key); flags != nil {
		t.Errorf("off: flags = %v", flags)
	}
}
