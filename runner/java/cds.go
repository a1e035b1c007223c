package java

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/runner/sandbox"
)

// Class-data sharing: a JVM that starts from an archive of the classes an
// earlier run loaded (AppCDS, JDK 13+) skips most of its class loading,
// which is most of a short javac or checkstyle run (measured here: javac
// 0.33 s -> 0.21 s, checkstyle 0.35 s -> 0.31 s). fixloop keeps one archive
// per tool and JDK under the user's cache directory; the first run writes it
// (-XX:ArchiveClassesAtExit), later runs read it (-XX:SharedArchiveFile). A
// stale or foreign archive is refused by the JVM itself, which then starts
// normally; -Xlog:disable keeps its notes off the tool's output.
//
// The tools run confined (sandbox.ConfineTool), where the cache directory
// is not writable: the first run writes its archive into the tool's own
// work directory, and fixloop, outside the sandbox, moves it into the
// cache when the run is over (copying it when the two are on different
// file systems). Later runs are shown the archive read-only. So the cache
// directory is never writable to a tool, and an archive appears there
// only whole (renamed into place), never half-written.

// cdsDir is where the archives live; "" disables them.
func cdsDir() string {
	if d := os.Getenv("FIXLOOP_JAVA_CDS"); d == "off" {
		return ""
	} else if d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "fixloop", "java-cds")
}

// cdsFlags returns the JVM flags that use (or, the first time, write beside
// the archive) the class-data archive of tool, and a function to call after
// the run; see javaCDS.
func cdsFlags(tool string, keyFiles ...string) (flags []string, done func()) {
	c := javaCDS("", tool, keyFiles...)
	return c.flags, c.done
}

// cdsRun is how one run of a JVM tool uses its class-data archive.
type cdsRun struct {
	// flags are the JVM's flags; none when archives are off.
	flags []string
	// readOnly is the archive the run reads, for the sandbox to show it
	// (empty when the run writes one).
	readOnly []string
	// done is to be called after the run: it moves a newly written
	// archive into place.
	done func()
}

// javaCDS returns the JVM flags that use (or, the first time, write) the
// class-data archive of tool, keyed by the files that decide which classes
// it loads (the tool's launcher and the JDK's java binary, by path, size
// and modification time). A new archive is written into work, the tool's
// work directory (where a confined tool may write), and moved into the
// cache by done; work "" writes it beside the archive's place.
func javaCDS(work, tool string, keyFiles ...string) cdsRun {
	off := cdsRun{done: func() {}}
	dir := cdsDir()
	if dir == "" {
		return off
	}
	h := sha256.New()
	for _, f := range keyFiles {
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			return off
		}
		st, err := os.Stat(real)
		if err != nil {
			return off
		}
		fmt.Fprintf(h, "%s %d %d\n", real, st.Size(), st.ModTime().UnixNano())
	}
	name := tool + "-" + hex.EncodeToString(h.Sum(nil))[:16] + ".jsa"
	archive := filepath.Join(dir, name)
	quiet := "-Xlog:disable"
	if _, err := os.Stat(archive); err == nil {
		return cdsRun{flags: []string{quiet, "-XX:SharedArchiveFile=" + archive}, readOnly: []string{archive}, done: func() {}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return off
	}
	tmp := archive + ".tmp-" + randomSuffix()
	if work != "" {
		tmp = filepath.Join(work, name+".tmp-"+randomSuffix())
	}
	return cdsRun{flags: []string{quiet, "-XX:ArchiveClassesAtExit=" + tmp}, done: func() {
		defer os.Remove(tmp)
		saveArchive(tmp, archive)
	}}
}

// maxArchive bounds a class-data archive fixloop moves into its cache: a
// JDK's whole default archive is under 20 MB, a tool's a few.
const maxArchive = 512 << 20

// saveArchive moves the archive the JVM wrote at tmp to archive: renamed
// when it can be, else copied beside archive and renamed into place, so
// that no JVM ever maps a half-written archive. The JVM wrote it in a
// confined tool's work directory, so it is what that run left: opened with
// sandbox.OpenLeftover (a symbolic link, FIFO or hard link there is left
// alone, never followed into the cache), and only a non-empty regular file
// is kept.
func saveArchive(tmp, archive string) {
	src, err := sandbox.OpenLeftover(filepath.Dir(tmp), filepath.Base(tmp), maxArchive)
	if err != nil {
		return
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil || st.Size() == 0 {
		return
	}
	if os.Rename(tmp, archive) == nil {
		return
	}
	dst, err := os.CreateTemp(filepath.Dir(archive), filepath.Base(archive)+".tmp-*")
	if err != nil {
		return
	}
	_, err = io.Copy(dst, io.LimitReader(src, maxArchive))
	if err == nil {
		err = dst.Chmod(st.Mode().Perm())
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(dst.Name(), archive)
	}
	if err != nil {
		_ = os.Remove(dst.Name())
	}
}

// javaBinary is the java launcher on PATH, the JDK the tools run on.
func javaBinary() string {
	p, err := javaTool.Find()
	if err != nil {
		return ""
	}
	return p
}

func randomSuffix() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return fmt.Sprint(os.Getpid())
	}
	return hex.EncodeToString(b)
}

// withJ prefixes JVM flags with -J, for javac.
func withJ(flags []string) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = "-J" + f
	}
	return out
}

// joinFlags joins JVM flags for JAVA_ARGS.
func joinFlags(flags []string) string { return strings.Join(flags, " ") }
