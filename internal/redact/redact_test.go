package redact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

const (
	tokenValue = "ghp_0123456789abcdefTOKEN"
	keyValue   = "sk-live-0123456789KEY"
	sshKey     = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIO\n-----END OPENSSH PRIVATE KEY-----"
)

func testEnviron() []string {
	return []string{
		"GITHUB_TOKEN=" + tokenValue,
		"OPENAI_API_KEY=" + keyValue,
		"SHORT_SECRET=1234567", // 7 bytes: too short
		"HOME=/home/someone/with/a/long/path",
		"DB_PASSWORD=correct horse battery",
		"DEPLOY_KEY=deploy-key-value",
		"GH_PAT=github_pat_11ABCDEFG",
		"SMTP_PASS=smtp-pass-value",
		"QUOTED_SECRET=say \"hello\" \\ there",
		"LLM_ACCESS=llm-access-value-1234", // not secret-looking: only with AddEnv
		"NOEQUALS",
	}
}

func TestSecretName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"OPENAI_API_KEY", true},
		{"MYAPIKEY", true},
		{"GITHUB_TOKEN", true},
		{"github_token", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_ACCESS_KEY_ID", true},
		{"DB_PASSWORD", true},
		{"PGPASSWD", true},
		{"GPG_PASSPHRASE", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"SSH_PRIVATE_KEY", true},
		{"DEPLOY_KEY", true},
		{"GH_PAT", true},
		{"SMTP_PASS", true},
		{"DB_PWD", true},
		{"HOME", false},
		{"PWD", false},
		{"OLDPWD", false},
		{"PATH", false},
		{"KEYBOARD", false},
		{"PATTERN", false},
		{"SSH_ASKPASS", false},
		{"LLM_ACCESS", false},
	}
	for _, tt := range tests {
		if got := SecretName(tt.name); got != tt.want {
			t.Errorf("SecretName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	r := New(testEnviron())
	r.AddEnv("LLM_ACCESS")
	tests := []struct {
		name, in, want string
	}{
		{"nothing secret", "ok: 3 passed", "ok: 3 passed"},
		{"empty", "", ""},
		{"token", "got " + tokenValue + " want x", "got [redacted] want x"},
		{"twice", tokenValue + tokenValue, "[redacted][redacted]"},
		{"api key", "Authorization: Bearer " + keyValue, "Authorization: Bearer [redacted]"},
		{"configured key variable", "key=llm-access-value-1234.", "key=[redacted]."},
		{"with spaces", "password: correct horse battery", "password: [redacted]"},
		{"_KEY suffix", "deploy-key-value", "[redacted]"},
		{"_PAT suffix", "github_pat_11ABCDEFG", "[redacted]"},
		{"_PASS suffix", "smtp-pass-value", "[redacted]"},
		{"too short", "1234567 stays", "1234567 stays"},
		{"not secret-looking", "/home/someone/with/a/long/path", "/home/someone/with/a/long/path"},
		{"JSON-quoted", `{"msg": "say \"hello\" \\ there"}`, `{"msg": "[redacted]"}`},
		{"raw quoted value", `say "hello" \ there`, `[redacted]`},
		{"private key", "before\n" + sshKey + "\nafter", "before\n[redacted]\nafter"},
		{"private key without END", "E   x = '" + strings.SplitAfter(sshKey, "\n")[0] + "b3BlbnNzaC1r\n... 40 bytes truncated", "E   x = '[redacted]"},
		{"private key with escaped newlines", `assert k == '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----' + x`, `assert k == '[redacted]' + x`},
		{"PGP key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----\nnext", "[redacted]\nnext"},
		{"PKCS#8 key", "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----", "[redacted]"},
		{"encrypted key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHz\n-----END ENCRYPTED PRIVATE KEY-----", "[redacted]"},
		{"two keys", "a -----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY----- b -----BEGIN EC PRIVATE KEY-----\nMHd\n-----END EC PRIVATE KEY----- c", "a [redacted] b [redacted] c"},
		{"END of another kind does not close", "-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END EC PRIVATE KEY-----\nmore", "[redacted]"},
		{"END whose BEGIN was cut off", "...bytes omitted...\nE   AAAAC3NzaC1lZDI1NTE5AAAAIO\nE   -----END OPENSSH PRIVATE KEY-----\nE   next line", "...bytes omitted...\n[redacted]\nE   next line"},
		{"public key stays", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"},
		{"certificate stays", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"words about keys stay", "use a PRIVATE KEY file", "use a PRIVATE KEY file"},
		{"secret inside a key block", "-----BEGIN RSA PRIVATE KEY-----\n" + tokenValue + "\n-----END RSA PRIVATE KEY-----", "[redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNilRedactsPrivateKeysOnly(t *testing.T) {
	var r *Redactor
	in := tokenValue + "\n" + sshKey
	if got, want := r.String(in), tokenValue+"\n[redacted]"; got != want {
		t.Errorf("nil.String = %q, want %q", got, want)
	}
	r.Add(tokenValue) // no panic
	r.AddEnv("GITHUB_TOKEN")
	if got := r.Error(errors.New(sshKey)).Error(); got != Mask {
		t.Errorf("nil.Error = %q", got)
	}
}

func TestAddEnv(t *testing.T) {
	t.Setenv("FIXLOOP_REDACT_TEST_LATER", "set-after-New-value")
	r := New([]string{"LLM_ACCESS=from-the-environ-value"})
	text := "from-the-environ-value set-after-New-value"
	if got := r.String(text); got != text {
		t.Fatalf("redacted before AddEnv: %q", got)
	}
	r.AddEnv("LLM_ACCESS")
	r.AddEnv("FIXLOOP_REDACT_TEST_LATER")
	r.AddEnv("")
	r.AddEnv("FIXLOOP_REDACT_TEST_UNSET")
	if got, want := r.String(text), "[redacted] [redacted]"; got != want {
		t.Errorf("after AddEnv: %q, want %q", got, want)
	}
}

func TestLongestSecretFirst(t *testing.T) {
	r := New(nil)
	r.Add("abcdefgh", "abcdefgh-and-more")
	if got := r.String("x abcdefgh-and-more y abcdefgh"); got != "x [redacted] y [redacted]" {
		t.Errorf("got %q", got)
	}
}

func TestError(t *testing.T) {
	r := New(testEnviron())
	plain := errors.New("nothing here")
	if got := r.Error(plain); got != plain {
		t.Errorf("an error without secrets was wrapped: %v", got)
	}
	if r.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
	inner := fmt.Errorf("pytest failed: %s: %w", tokenValue, context.DeadlineExceeded)
	err := r.Error(inner)
	if strings.Contains(err.Error(), tokenValue) || !strings.Contains(err.Error(), Mask) {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the redacted error does not unwrap")
	}
	if wrapped := fmt.Errorf("testing the candidate: %w", err); strings.Contains(wrapped.Error(), tokenValue) {
		t.Errorf("wrapping shows the secret: %v", wrapped)
	}
}

func TestHandler(t *testing.T) {
	r := New(testEnviron())
	var buf bytes.Buffer
	h := r.Handler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if r.Handler(h) != h {
		t.Error("wrapping twice")
	}
	logger := slog.New(h).With("ctx", "with "+tokenValue).WithGroup("g")
	logger.Debug("linter failed: "+tokenValue,
		"err", fmt.Errorf("exit 3: %s", sshKey),
		"args", []string{"-c", keyValue},
		"nested", slog.GroupValue(slog.String("inner", "x "+tokenValue)),
		"count", 3,
		"nilerr", (*nilError)(nil),
		"fine", "plain value",
	)
	out := buf.String()
	for _, secret := range []string{tokenValue, keyValue, "BEGIN OPENSSH"} {
		if strings.Contains(out, secret) {
			t.Errorf("log line shows %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{`msg="linter failed: [redacted]"`, `ctx="with [redacted]"`, `g.err="exit 3: [redacted]"`, `g.args="[-c [redacted]]"`, `g.nested.inner="x [redacted]"`, "g.count=3", `g.fine="plain value"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log line lacks %s:\n%s", want, out)
		}
	}
	// A disabled level stays disabled.
	buf.Reset()
	slog.New(r.Handler(slog.NewTextHandler(&buf, nil))).Debug(tokenValue)
	if buf.Len() != 0 {
		t.Errorf("debug logged at info level: %s", buf.String())
	}
}

type nilError struct{}

func (*nilError) Error() string { panic("nil receiver") }

func TestConcurrentUse(t *testing.T) {
	r := New(nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			v := fmt.Sprintf("secret-value-%d", i)
			r.Add(v)
			for range 100 {
				if got := r.String("x " + v); got != "x [redacted]" {
					t.Errorf("got %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
}
