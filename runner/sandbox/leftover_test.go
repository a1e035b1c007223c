//go:build unix

package sandbox

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leftoverModes runs a test with openat2 and with the walk that stands in
// for it where the kernel or a seccomp filter refuses openat2.
func leftoverModes(t *testing.T, test func(t *testing.T)) {
	for _, mode := range []struct {
		name    string
		openat2 bool
	}{{"openat2", true}, {"walk", false}} {
		t.Run(mode.name, func(t *testing.T) {
			if mode.openat2 && !useOpenat2 {
				t.Skip("no openat2 on this system")
			}
			old := useOpenat2
			useOpenat2 = mode.openat2
			t.Cleanup(func() { useOpenat2 = old })
			test(t)
		})
	}
}

// leftoverWorld is a run's copy (root) beside a host directory holding a
// secret the copy's links point at.
func leftoverWorld(t *testing.T) (root, secret string) {
	t.Helper()
	base := t.TempDir()
	root, host := filepath.Join(base, "copy"), filepath.Join(base, "host")
	for _, d := range []string{root, host, filepath.Join(root, "reports"), filepath.Join(root, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = "CANARY-HOST-SECRET"
	write := func(p, text string) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(host, "credentials"), secret+"\n")
	write(filepath.Join(root, "reports", "ok.xml"), "<testsuite/>")
	write(filepath.Join(root, "exact"), strings.Repeat("x", 64))
	write(filepath.Join(root, "over"), strings.Repeat("x", 65))
	write(filepath.Join(root, "linked"), "two names")
	links := map[string]string{
		"reports/host.xml":     filepath.Join(host, "credentials"),
		"reports/relative.xml": "../../host/credentials",
		"reports/inside.xml":   "ok.xml", // a link inside the copy is refused too
		"hostdir":              host,
		"zero":                 "/dev/zero",
		"magic":                "/proc/self/root" + filepath.Join(host, "credentials"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "linked"), filepath.Join(host, "other-name")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file of a terabyte: its size alone refuses it.
	f, err := os.Create(filepath.Join(root, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return root, secret
}

func TestReadLeftover(t *testing.T) {
	leftoverModes(t, func(t *testing.T) {
		root, secret := leftoverWorld(t)
		sock := filepath.Join(root, "s")
		if l, err := net.Listen("unix", sock); err == nil {
			t.Cleanup(func() { l.Close() })
		} else {
			sock = "" // a path too long for a socket
		}
		tests := []struct {
			rel     string
			want    string // the content, when it is read
			refused string // what the refusal says
			missing bool
		}{
			{rel: "reports/ok.xml", want: "<testsuite/>"},
			{rel: "./reports//ok.xml", want: "<testsuite/>"},
			{rel: "exact", want: strings.Repeat("x", 64)},
			{rel: "over", refused: "larger than 64 bytes"},
			{rel: "sparse", refused: "larger than 64 bytes"},
			{rel: "reports/host.xml", refused: "symbolic link"},
			{rel: "reports/relative.xml", refused: "symbolic link"},
			{rel: "reports/inside.xml", refused: "symbolic link"},
			{rel: "hostdir/credentials", refused: "hostdir is a symbolic link"},
			{rel: "magic", refused: "symbolic link"},
			{rel: "zero", refused: "symbolic link"},
			{rel: "fifo", refused: "a named pipe (FIFO), not a regular file"},
			{rel: "dir", refused: "a directory"},
			{rel: ".", refused: "the copy itself"},
			{rel: "linked", refused: "2 names"},
			{rel: "../host/credentials", refused: "leaves the copy"},
			{rel: "reports/../../host/credentials", refused: "leaves the copy"},
			{rel: filepath.Join(filepath.Dir(root), "host", "credentials"), refused: "absolute"},
			{rel: "exact/x.xml", refused: "exact is not a directory"},
			{rel: "nothing.xml", missing: true},
			{rel: "reports/nothing/x.xml", missing: true},
		}
		if sock != "" {
			tests = append(tests, struct {
				rel, want, refused string
				missing            bool
			}{rel: "s", refused: "socket"})
		}
		for _, tt := range tests {
			t.Run(tt.rel, func(t *testing.T) {
				var data []byte
				var err error
				done := make(chan struct{})
				go func() {
					defer close(done)
					data, err = ReadLeftover(root, tt.rel, 64)
				}()
				select {
				case <-done:
				case <-time.After(2 * time.Minute): // a blocked open, not a slow one
					t.Fatalf("ReadLeftover(%q) blocks", tt.rel)
				}
				if strings.Contains(string(data), secret) || (err != nil && strings.Contains(err.Error(), secret)) {
					t.Fatalf("ReadLeftover(%q) leaked the host's file: %q, %v", tt.rel, data, err)
				}
				switch {
				case tt.missing:
					if !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("ReadLeftover(%q) = %q, %v; want an error wrapping fs.ErrNotExist", tt.rel, data, err)
					}
				case tt.refused != "":
					var r *RefusedError
					if !errors.As(err, &r) || !IsRefused(err) || !strings.Contains(err.Error(), tt.refused) {
						t.Errorf("ReadLeftover(%q) = %q, %v; want a refusal saying %q", tt.rel, data, err, tt.refused)
					}
				default:
					if err != nil || string(data) != tt.want {
						t.Errorf("ReadLeftover(%q) = %q, %v; want %q", tt.rel, data, err, tt.want)
					}
				}
			})
		}
	})
}

func TestGlobLeftovers(t *testing.T) {
	leftoverModes(t, func(t *testing.T) {
		root, _ := leftoverWorld(t)
		for _, d := range []string{"a/reports", "b/reports", "real"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{"a/reports/TEST-1.xml", "b/reports/TEST-2.xml", "real/TEST-3.xml"} {
			if err := os.WriteFile(filepath.Join(root, f), []byte("<testsuite/>"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// A symlinked directory is not listed: its files are the host's.
		if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "c")); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			pattern string
			want    []string
			err     string
		}{
			{pattern: "reports/*.xml", want: []string{"reports/host.xml", "reports/inside.xml", "reports/ok.xml", "reports/relative.xml"}},
			{pattern: "*/reports/TEST-*.xml", want: []string{"a/reports/TEST-1.xml", "b/reports/TEST-2.xml"}},
			{pattern: "*/TEST-*.xml", want: []string{"real/TEST-3.xml"}},
			{pattern: "c/TEST-*.xml", want: nil},
			{pattern: "hostdir/*", want: nil},
			{pattern: "reports/ok.xml", want: []string{"reports/ok.xml"}},
			{pattern: "reports/none.xml", want: nil},
			{pattern: "missing/*.xml", want: nil},
			{pattern: "fifo", want: []string{"fifo"}},
			{pattern: "../host/*", err: "leaves the copy"},
			{pattern: "/etc/*", err: "absolute"},
			{pattern: "[", err: "syntax error"},
		}
		for _, tt := range tests {
			got, err := GlobLeftovers(root, tt.pattern)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("GlobLeftovers(%q) = %q, %v; want an error saying %q", tt.pattern, got, err, tt.err)
				}
			case err != nil || !slices.Equal(got, tt.want):
				t.Errorf("GlobLeftovers(%q) = %q, %v; want %q", tt.pattern, got, err, tt.want)
			}
		}
	})
}

// TestGlobLeftoversBounded: a directory of too many entries, or too many
// matches, is an error, not a listing held in memory.
func TestGlobLeftoversBounded(t *testing.T) {
	oldEntries, oldMatches := maxGlobEntries, maxGlobMatches
	maxGlobEntries, maxGlobMatches = 50, 10
	t.Cleanup(func() { maxGlobEntries, maxGlobMatches = oldEntries, oldMatches })
	root := t.TempDir()
	for _, d := range []string{"many", "some"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 51 {
		for _, d := range []string{"many", "some"} {
			if d == "some" && i > 20 {
				continue
			}
			if err := os.WriteFile(filepath.Join(root, d, "f"+strconv.Itoa(i)+".xml"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, err := GlobLeftovers(root, "many/*.txt"); err == nil || !strings.Contains(err.Error(), "more than 50 entries") {
		t.Errorf("GlobLeftovers in 51 entries = %q, %v; want an error", got, err)
	}
	if got, err := GlobLeftovers(root, "some/*.xml"); err == nil || !strings.Contains(err.Error(), "more than 10 files") {
		t.Errorf("GlobLeftovers matching 21 files = %q, %v; want an error", got, err)
	}
}

// TestReadCopied: a file the project reaches through its own symbolic
// link (which the copy keeps) is read from the project; one the run
// replaced with a link, or a FIFO, is refused.
func TestReadCopied(t *testing.T) {
	leftoverModes(t, func(t *testing.T) {
		base := t.TempDir()
		proj, shared, host := filepath.Join(base, "proj"), filepath.Join(base, "shared"), filepath.Join(base, "host")
		for _, d := range []string{proj, shared, host} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		files := map[string]string{
			"proj/main.py":     "print('main')\n",
			"proj/replaced.py": "print('replaced')\n",
			"proj/piped.py":    "print('piped')\n",
			"shared/lib.py":    "print('lib')\n",
			"host/secret":      "CANARY-HOST-SECRET\n",
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("../shared", filepath.Join(proj, "lib")); err != nil {
			t.Fatal(err)
		}
		work, cleanup, err := Workdir(t.Context(), proj, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cleanup)
		// What a test does to the copy.
		if err := os.Remove(filepath.Join(work, "replaced.py")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(host, "secret"), filepath.Join(work, "replaced.py")); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(work, "piped.py")); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(work, "piped.py"), 0o644); err != nil {
			t.Fatal(err)
		}
		tests := []struct{ rel, want, refused string }{
			{rel: "main.py", want: "print('main')\n"},
			{rel: "lib/lib.py", want: "print('lib')\n"},
			{rel: "replaced.py", refused: "symbolic link"},
			{rel: "piped.py", refused: "FIFO"},
		}
		for _, tt := range tests {
			data, err := ReadCopied(work, proj, tt.rel, LeftoverLimit)
			if tt.refused != "" {
				if !IsRefused(err) || !strings.Contains(err.Error(), tt.refused) || data != nil {
					t.Errorf("ReadCopied(%q) = %q, %v; want a refusal saying %q", tt.rel, data, err, tt.refused)
				}
				continue
			}
			if err != nil || string(data) != tt.want {
				t.Errorf("ReadCopied(%q) = %q, %v; want %q", tt.rel, data, err, tt.want)
			}
		}
	})
}

// TestIsLeftoverFile: only a regular file with one name, reached without
// a symbolic link, is a file a run left; OpenLeftover opens the same ones.
func TestIsLeftoverFile(t *testing.T) {
	leftoverModes(t, func(t *testing.T) {
		root, _ := leftoverWorld(t)
		for rel, want := range map[string]bool{
			"reports/ok.xml":      true,
			"sparse":              true, // any size
			"reports/host.xml":    false,
			"hostdir/credentials": false,
			"zero":                false,
			"fifo":                false,
			"linked":              false,
			"dir":                 false,
			"../host/credentials": false,
			"nothing":             false,
		} {
			if got := IsLeftoverFile(root, rel); got != want {
				t.Errorf("IsLeftoverFile(%q) = %t, want %t", rel, got, want)
			}
			f, err := OpenLeftover(root, rel, 1<<41)
			if (err == nil) != want {
				t.Errorf("OpenLeftover(%q) error %v, want a file: %t", rel, err, want)
			}
			if err == nil {
				f.Close()
			}
		}
		proj := t.TempDir() // the project, where no such link is
		if !IsCopiedFile(root, proj, "reports/ok.xml") || IsCopiedFile(root, proj, "reports/host.xml") {
			t.Error("IsCopiedFile: want the run's regular file and not the run's link")
		}
	})
}
