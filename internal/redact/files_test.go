package redact

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestDotenvValues(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		want, not []string // redacted; left alone
	}{
		{"plain", "SECRET_TOKEN=plain-value-123\n", []string{"plain-value-123"}, nil},
		{"export prefix", "export API=exported-value-1\n", []string{"exported-value-1"}, []string{"export"}},
		{"double quotes", `TOKEN="double quoted value"` + "\n", []string{"double quoted value"}, nil},
		{"single quotes", "TOKEN='single-quoted-1'\n", []string{"single-quoted-1"}, nil},
		{"inline comment", "TOKEN=commented-value # not this part\n", []string{"commented-value"}, []string{"not this part"}},
		{"comment line", "# COMMENTED=in-a-comment-line\nX=real-value-99\n", []string{"real-value-99"}, []string{"in-a-comment-line"}},
		{"any key name", "APP_NAME=not-secret-looking\n", []string{"not-secret-looking"}, nil},
		{"short value", "DEBUG=true\nPORT=8080\nSHORT=1234567\n", nil, []string{"true", "8080", "1234567"}},
		{"spaces around", "  KEY =  spaced-value-1  \n", []string{"spaced-value-1"}, nil},
		{"CRLF", "KEY=crlf-value-123\r\n", []string{"crlf-value-123"}, nil},
		{"multi-line", "KEY=\"first-line-1\nsecond-line-2\"\n", []string{"first-line-1\nsecond-line-2"}, nil},
		{"refused by the parser", "not a dotenv line\nKEY=fallback-value-1\n", []string{"fallback-value-1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(nil)
			r.Add(DotenvValues([]byte(tt.text))...)
			for _, w := range tt.want {
				if got := r.String("x " + w + " y"); got != "x "+Mask+" y" {
					t.Errorf("%q: got %q, want it redacted", w, got)
				}
			}
			for _, n := range tt.not {
				if got := r.String(n); got != n {
					t.Errorf("%q redacted: %q", n, got)
				}
			}
		})
	}
}

func TestNetrcValues(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"one line", "machine api.example.com login alice-user password hunter2-pass\n", []string{"alice-user", "hunter2-pass"}},
		{"lines and account", "machine h\n  login bob\n  password s3cr3t-pw!\n  account acct-12345\n", []string{"bob", "s3cr3t-pw!", "acct-12345"}},
		{"default and quotes", `default login anon password "with space\"q"`, []string{"anon", `with space"q`}},
		{"macdef skipped", "macdef init\npassword not-a-value\n\nmachine m password after-macro-1\n", []string{"after-macro-1"}},
		{"empty", "", nil},
		{"keyword at the end", "machine m password", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NetrcValues([]byte(tt.text)); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestINIValues(t *testing.T) {
	text := `[default]
aws_access_key_id = AKIAEXAMPLE123
aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY
region = us-east-1
; a comment = not-a-value
[profile other]
aws_session_token=session-token-value
output = json
`
	got, err := INIValues([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"AKIAEXAMPLE123", "session-token-value", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProjectDirs(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string, files ...string) string {
		d := filepath.Join(base, rel)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	mk("repo/.git")
	mk("repo/svc", "go.mod")
	mk("repo/svc/pkg/sub")
	mk("mod", "go.mod")
	mk("mod/a")
	mk("py", "pyproject.toml")
	mk("py/src/app")
	mk("loose/dir")
	tests := []struct {
		dir  string
		want []string
	}{
		{"repo/svc/pkg/sub", []string{"repo/svc/pkg/sub", "repo/svc/pkg", "repo/svc", "repo"}},
		{"mod/a", []string{"mod/a", "mod"}},
		{"py/src/app", []string{"py/src/app", "py/src", "py"}},
		{"loose/dir", []string{"loose/dir"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(base, w))
			}
			if got := ProjectDirs(filepath.Join(base, tt.dir)); !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// TestAddProjectOf: the values of .env files from the file's directory up
// to the project root, of the project's .netrc and of the user's netrc
// and AWS credentials are redacted; files above the root, other files and
// a FIFO named .env (never opened blocking) are not read.
func TestAddProjectOf(t *testing.T) {
	base := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("NETRC", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "")
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(base, ".env"), "ABOVE=above-the-root-1\n")
	root := filepath.Join(base, "proj")
	write(filepath.Join(root, "go.mod"), "module p\n")
	write(filepath.Join(root, ".env"), "SECRET_TOKEN=root-dotenv-1\n")
	write(filepath.Join(root, ".env.local"), "LOCAL=root-dotenv-local\n")
	write(filepath.Join(root, "env.txt"), "OTHER=not-a-secrets-file\n")
	write(filepath.Join(root, ".netrc"), "machine m login project-login password project-pass\n")
	write(filepath.Join(root, "pkg", ".env.test"), "T=pkg-dotenv-test\n")
	write(filepath.Join(home, ".netrc"), "machine m password home-netrc-pw\n")
	write(filepath.Join(home, ".aws", "credentials"), "[default]\naws_secret_access_key = home-aws-secret\n")
	if err := syscall.Mkfifo(filepath.Join(root, "pkg", ".env"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "pkg", "main.go")
	write(file, "package pkg\n")

	r := New(nil)
	err := r.AddProjectOf(file)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("AddProjectOf: %v, want the FIFO's error", err)
	}
	for _, v := range []string{"root-dotenv-1", "root-dotenv-local", "project-login", "project-pass", "pkg-dotenv-test", "home-netrc-pw", "home-aws-secret"} {
		if got := r.String(v); got != Mask {
			t.Errorf("%q not redacted: %q", v, got)
		}
	}
	for _, v := range []string{"above-the-root-1", "not-a-secrets-file"} {
		if got := r.String(v); got != v {
			t.Errorf("%q redacted", v)
		}
	}
	// A nil Redactor reads nothing.
	var nr *Redactor
	if err := nr.AddProjectOf(file); err != nil {
		t.Errorf("nil Redactor: %v", err)
	}
}
