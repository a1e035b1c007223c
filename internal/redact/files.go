package redact

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/joho/godotenv"
	"gopkg.in/ini.v1"

	"github.com/fixloop/fixloop/internal/projroot"
)

// Secrets files. Besides the environment, a project keeps secrets in files
// that its tests and tools may read and quote: a config test that fails
// prints the project's .env. AddProjectOf makes the values of these files
// secrets:
//
//   - .env and .env.* (.env.local, .env.production, ...): every value,
//     whatever its key's name, parsed as dotenv (export prefixes, quotes,
//     comments; github.com/joho/godotenv), or line by line where that
//     parser refuses the file;
//   - .netrc and _netrc: the login, password and account values;
//   - the AWS shared credentials file: every value but region and output.
//
// They are looked for in the file's directory and each directory above it
// up to the project root: the repository's root (.git), else the Go
// module's (go.mod), else the nearest directory with a .fixloop.yaml,
// pyproject.toml, setup.py, package.json or pom.xml; with none of these,
// in the file's directory only. Never above the project root. In the home
// directory: .netrc (or $NETRC) and .aws/credentials (or
// $AWS_SHARED_CREDENTIALS_FILE). As everywhere, values shorter than
// MinSecretLen bytes are not redacted. A file is read only when it is a
// regular file (a FIFO or a device is skipped, never opened blocking), and
// at most maxSecretsFile bytes of it.

// maxSecretsFile bounds how much of a secrets file is read.
const maxSecretsFile = 1 << 20

// rescanAfter is how long a directory's secrets files are trusted before
// they are looked at again (a .env edited while the server runs).
const rescanAfter = 5 * time.Second

// projectMarkers mark a project's root where no repository or Go module
// does.
var projectMarkers = []string{".fixloop.yaml", "pyproject.toml", "setup.py", "package.json", "pom.xml"}

// fileState is what AddProjectOf has read.
type fileState struct {
	mu      sync.Mutex
	scanned map[string]time.Time // directory: when its files were read
	home    bool
}

// AddProjectOf adds the values of the secrets files of file's project and
// of the home directory (see above). It returns what could not be read,
// for the log; what was read is added all the same.
func (r *Redactor) AddProjectOf(file string) error {
	if file == "" {
		return nil
	}
	return r.AddProject(filepath.Dir(file))
}

// AddProject is AddProjectOf for a file in dir.
func (r *Redactor) AddProject(dir string) error {
	if r == nil || dir == "" {
		return nil
	}
	dirs := ProjectDirs(dir)
	now := time.Now()
	r.files.mu.Lock()
	if r.files.scanned == nil {
		r.files.scanned = map[string]time.Time{}
	}
	var todo []string
	for _, d := range dirs {
		if t, ok := r.files.scanned[d]; !ok || now.Sub(t) > rescanAfter {
			r.files.scanned[d] = now
			todo = append(todo, d)
		}
	}
	home := !r.files.home
	r.files.home = true
	r.files.mu.Unlock()

	var paths []string
	for _, d := range todo {
		paths = append(paths, DirSecretsFiles(d)...)
	}
	if home {
		paths = append(paths, HomeSecretsFiles()...)
	}
	var errs []error
	for _, p := range paths {
		values, err := SecretsFileValues(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		r.Add(values...)
	}
	return errors.Join(errs...)
}

// ProjectDirs are dir and the directories above it up to its project's
// root, nearest first.
func ProjectDirs(dir string) []string {
	dir = filepath.Clean(dir)
	root := projroot.RepoRoot(dir)
	if root == "" {
		root = projroot.ModuleRoot(dir)
	}
	if root == "" {
		root = markedRoot(dir)
	}
	out := []string{dir}
	if root == "" || root == dir {
		return out
	}
	if rel, err := filepath.Rel(root, dir); err != nil || strings.HasPrefix(rel, "..") {
		return out
	}
	for d := dir; d != root; {
		d = filepath.Dir(d)
		out = append(out, d)
	}
	return out
}

// markedRoot is the nearest directory from dir up that holds one of
// projectMarkers, or "".
func markedRoot(dir string) string {
	for d := dir; ; {
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// DirSecretsFiles lists dir's secrets files: .env, .env.*, .netrc and
// _netrc.
func DirSecretsFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); n == ".env" || strings.HasPrefix(n, ".env.") || n == ".netrc" || n == "_netrc" {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// HomeSecretsFiles are the user's netrc and AWS shared credentials files:
// $NETRC or ~/.netrc (and ~/_netrc), $AWS_SHARED_CREDENTIALS_FILE or
// ~/.aws/credentials.
func HomeSecretsFiles() []string {
	home, _ := os.UserHomeDir()
	var out []string
	if p := os.Getenv("NETRC"); p != "" {
		out = append(out, p)
	} else if home != "" {
		out = append(out, filepath.Join(home, ".netrc"), filepath.Join(home, "_netrc"))
	}
	if p := os.Getenv("AWS_SHARED_CREDENTIALS_FILE"); p != "" {
		out = append(out, p)
	} else if home != "" {
		out = append(out, filepath.Join(home, ".aws", "credentials"))
	}
	return out
}

// SecretsFileValues reads the secrets file at path and returns its
// values, parsed by its name: netrc for .netrc, _netrc and a file named by
// $NETRC; INI for credentials; dotenv otherwise.
func SecretsFileValues(path string) ([]string, error) {
	data, err := readRegular(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	switch {
	case base == ".netrc" || base == "_netrc" || path == os.Getenv("NETRC"):
		return NetrcValues(data), nil
	case base == "credentials" || path == os.Getenv("AWS_SHARED_CREDENTIALS_FILE"):
		values, err := INIValues(data)
		if err != nil {
			return values, fmt.Errorf("reading the secrets file %s: %w", path, err)
		}
		return values, nil
	}
	return DotenvValues(data), nil
}

// readRegular reads at most maxSecretsFile bytes of path, which must be a
// regular file (after symlinks): a FIFO is never opened blocking.
func readRegular(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("reading the secrets file %s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the secrets file %s: %w", path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("reading the secrets file %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSecretsFile))
	if err != nil {
		return nil, fmt.Errorf("reading the secrets file %s: %w", path, err)
	}
	return data, nil
}

// DotenvValues returns the values of a dotenv file, parsed with godotenv;
// where it refuses the file, line by line: what follows the first "=" of
// each line that is not a comment, unquoted.
func DotenvValues(data []byte) []string {
	var out []string
	if m, err := godotenv.UnmarshalBytes(data); err == nil {
		for _, v := range m {
			out = append(out, v)
		}
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), maxSecretsFile)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		out = append(out, v)
	}
	return out
}

// NetrcValues returns the login, password and account values of a netrc
// file. Tokens are separated by white space and may be double-quoted (as
// curl reads them); a macdef's body, up to an empty line, is skipped.
// Hand-written: the netrc modules the proxy serves (jdx/go-netrc v1.0.0,
// bgentry/go-netrc) index past the end of a file that ends in "machine"
// and read neither quotes nor macdef bodies, and a repository's file is
// hostile input.
func NetrcValues(data []byte) []string {
	var out []string
	toks := netrcTokens(string(data))
	for i := 0; i < len(toks); i++ {
		switch toks[i].text {
		case "login", "password", "passwd", "account":
			if i+1 < len(toks) {
				out = append(out, toks[i+1].text)
				i++
			}
		case "macdef":
			// Skip the name and the body: up to the first empty line.
			if i+1 < len(toks) {
				end := toks[i+1].end
				rest := string(data[end:])
				if j := strings.Index(rest, "\n\n"); j >= 0 {
					end += j + 2
				} else {
					end = len(data)
				}
				for i+1 < len(toks) && toks[i+1].start < end {
					i++
				}
			}
		}
	}
	return out
}

type netrcToken struct {
	text       string
	start, end int
}

// netrcTokens splits s into white-space separated tokens; a token that
// starts with a double quote runs to the closing one, with backslash
// escapes.
func netrcTokens(s string) []netrcToken {
	var out []netrcToken
	i := 0
	for i < len(s) {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
		if i >= len(s) {
			break
		}
		start := i
		var b strings.Builder
		if s[i] == '"' {
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
				i++
			}
			i++ // the closing quote
		} else {
			for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) < 0 {
				b.WriteByte(s[i])
				i++
			}
		}
		out = append(out, netrcToken{text: b.String(), start: start, end: min(i, len(s))})
	}
	return out
}

// iniNotSecret are the keys of an AWS credentials file that hold no
// secret: redacting "us-east-1" everywhere would mangle output.
var iniNotSecret = map[string]bool{"region": true, "output": true}

// INIValues returns every value of an INI file (the AWS shared credentials
// file) but those of iniNotSecret's keys.
func INIValues(data []byte) ([]string, error) {
	f, err := ini.LoadSources(ini.LoadOptions{Insensitive: true, AllowBooleanKeys: true, SkipUnrecognizableLines: true, IgnoreInlineComment: true}, data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range f.Sections() {
		for _, k := range s.Keys() {
			if !iniNotSecret[k.Name()] {
				out = append(out, k.Value())
			}
		}
	}
	return out, nil
}
