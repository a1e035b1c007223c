package golang

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// An auxFile is a version of a file of the package that is not checked:
// excluded by build constraints, or assembly.
type auxFile struct {
	stamp fileStamp
	sum   uint64
}

// A fileStamp identifies a version of a file on disk.
type fileStamp struct {
	name    string
	size    int64
	modTime time.Time
	exists  bool
	read    time.Time // when the stamp was taken
}

func stamp(name string) fileStamp {
	fs := fileStamp{name: name, read: time.Now()}
	if fi, err := os.Stat(name); err == nil {
		fs.size, fs.modTime, fs.exists = fi.Size(), fi.ModTime(), true
	}
	return fs
}

// sameAs reports whether two stamps name the same version.
func (fs fileStamp) sameAs(o fileStamp) bool {
	return fs.name == o.name && fs.size == o.size && fs.modTime.Equal(o.modTime) && fs.exists == o.exists
}

func modStamps(modRoot string) []fileStamp {
	return []fileStamp{stamp(filepath.Join(modRoot, "go.mod")), stamp(filepath.Join(modRoot, "go.sum"))}
}

func stampsEqual(a, b []fileStamp) bool {
	return slices.EqualFunc(a, b, fileStamp.sameAs)
}
