package java

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestCDSLeftoverNotFollowed: an archive a confined tool "wrote" as a
// symbolic link to a host file, a FIFO or an empty file is not moved into
// the cache, which every later JVM maps.
func TestCDSLeftoverNotFollowed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, tmp, secret string)
	}{
		{"symlink", func(t *testing.T, tmp, secret string) {
			if err := os.Symlink(secret, tmp); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", func(t *testing.T, tmp, _ string) {
			if err := syscall.Mkfifo(tmp, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, tmp, _ string) {
			if err := os.WriteFile(tmp, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cache, work := t.TempDir(), t.TempDir()
			t.Setenv("FIXLOOP_JAVA_CDS", cache)
			secret := filepath.Join(t.TempDir(), "credentials")
			if err := os.WriteFile(secret, []byte("CANARY"), 0o600); err != nil {
				t.Fatal(err)
			}
			key := filepath.Join(t.TempDir(), "tool")
			if err := os.WriteFile(key, []byte("v1"), 0o644); err != nil {
				t.Fatal(err)
			}
			run := javaCDS(work, "javac", key)
			if len(run.flags) != 2 {
				t.Fatalf("flags = %v", run.flags)
			}
			tt.plant(t, strings.TrimPrefix(run.flags[1], "-XX:ArchiveClassesAtExit="), secret)
			run.done()
			entries, err := os.ReadDir(cache)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Errorf("the cache holds %v after a %s archive; want nothing", entries, tt.name)
			}
		})
	}
}
