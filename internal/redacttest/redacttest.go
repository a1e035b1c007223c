// Package redacttest is the fixture of the end-to-end redaction tests
// (server/redact_test.go, cli/redact_test.go): a Go package whose tool
// output quotes three secrets, the environment that makes two of them
// secrets, and the check that none of them got through. It is Go so that
// the tests need no tool beyond the go command.
//
// The secrets reach the tools' output the way they would in real code: the
// test file holds them as literals (candidates get environment variables
// only by allow-list, so a test could not read them from the environment),
// its failing test prints them (t.Fatal), and go test reports that; a
// command linter of the project's .fixloop.yaml quotes the same lines in its
// error, which is logged and shown as a note. The server's (or the
// command's) environment holds the first two values under their variables'
// names, so the redactor knows them:
//
//   - KeyValue in KeyVar, a variable whose name does not look secret, so
//     that only the configured API key variable (model.apiKeyEnv,
//     --api-key-env) makes it a secret;
//   - TokenValue in TokenVar, a GITHUB_TOKEN-style variable;
//   - PrivateKey, an OpenSSH private key block, secret wherever it appears.
//
// Two more are in files, not in the environment (issue 24, case 8): the
// project's .env holds EnvFileValue as SECRET_TOKEN (with an export prefix
// and quotes), and the AWS shared credentials file that Setenv names
// ($AWS_SHARED_CREDENTIALS_FILE, as ~/.aws/credentials would be) holds
// AWSValue; only reading those files makes them secrets.
package redacttest

import (
	"bytes"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, as the store uses it

	"github.com/fixloop/fixloop/internal/redact"
)

// The canaries.
const (
	KeyVar     = "FIXLOOP_LLM_ACCESS"
	KeyValue   = "llm-access-CANARY-7f3a9c1e5b"
	TokenVar   = "FIXLOOP_DEPLOY_TOKEN"
	TokenValue = "ghp_CANARYt0ken4f8e2d6c0b9a7"
	KeyBody    = "b3BlbnNzaC1rZXktdjEAAAAACANARYKEYMATERIAL0123"
	PrivateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + KeyBody + "\n-----END OPENSSH PRIVATE KEY-----"
	// EnvFileValue is SECRET_TOKEN in the project's .env.
	EnvFileValue = "dotenv-CANARY-3c9e1f7a2b"
	// AWSValue is aws_secret_access_key in the AWS credentials file.
	AWSValue = "awsCANARYsecret0b1c2d3e4f5a6b7c8d9e"
)

// dotenv is the project's .env.
const dotenv = `# the project's settings
DEBUG=true
export SECRET_TOKEN="` + EnvFileValue + `" # the deploy token
`

// awsCredentials is the AWS shared credentials file.
const awsCredentials = `[default]
aws_access_key_id = AKIACANARY0EXAMPLE
aws_secret_access_key = ` + AWSValue + `
region = us-east-1
`

// Calc is the package under test, with a bug: Add subtracts.
const Calc = `// Package calc is arithmetic for the redaction tests.
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
`

// Fixed is Calc repaired.
var Fixed = strings.Replace(Calc, "return a - b", "return a + b", 1)

// StillBroken is a candidate that changes Calc but keeps the bug.
var StillBroken = strings.Replace(Calc, "return a - b", "return -(b - a)", 1)

// testFile fails while Add is wrong, printing the canaries.
const testFile = `package calc

import "testing"

const leak = "` + KeyValue + ` ` + TokenValue + `\n" +
	"SECRET_TOKEN=` + EnvFileValue + ` aws=` + AWSValue + `\n" +
	"-----BEGIN OPENSSH PRIVATE KEY-----\n" +
	"` + KeyBody + `\n" +
	"-----END OPENSSH PRIVATE KEY-----"

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal(leak)
	}
}
`

// config adds a command linter for Go files that fails and quotes the
// test file's leak lines in its error.
const config = `linters:
  - name: leaky
    command: [sh, -c, "grep -A4 'const leak' calc_test.go >&2; exit 3"]
    extensions: [.go]
    errorformat: ["%f:%l:%c: %m"]
`

// Setenv puts the key and the token in the environment for the test, and
// names an AWS credentials file that holds AWSValue
// (t.Setenv: the test cannot be parallel). It must run before the redactor
// is made (the server or the command starts).
func Setenv(t *testing.T) {
	t.Helper()
	t.Setenv(KeyVar, KeyValue)
	t.Setenv(TokenVar, TokenValue)
	creds := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(creds, []byte(awsCredentials), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
}

// Project writes the Go module into a new directory and returns it with
// the path of calc.go and of calc_test.go.
func Project(t *testing.T) (dir, file, tests string) {
	t.Helper()
	dir = t.TempDir()
	for name, text := range map[string]string{
		"go.mod":        "module example.com/calc\n\ngo 1.22\n",
		"calc.go":       Calc,
		"calc_test.go":  testFile,
		".fixloop.yaml": config,
		".env":          dotenv,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "calc.go"), filepath.Join(dir, "calc_test.go")
}

// Leaks lists the canaries text shows.
func Leaks(text string) []string {
	var found []string
	for _, c := range []string{KeyValue, TokenValue, KeyBody, "BEGIN OPENSSH PRIVATE KEY", "END OPENSSH PRIVATE KEY", EnvFileValue, AWSValue} {
		if strings.Contains(text, c) {
			found = append(found, c)
		}
	}
	return found
}

// Check fails the test when text, which is what, shows a canary or does
// not say [redacted].
func Check(t *testing.T, what, text string) {
	t.Helper()
	if leaks := Leaks(text); len(leaks) > 0 {
		t.Errorf("%s shows %q:\n%s", what, leaks, text)
	}
	if !strings.Contains(text, redact.Mask) {
		t.Errorf("%s does not say %s:\n%s", what, redact.Mask, text)
	}
}

// Log collects log lines from any goroutine.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns what was logged so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Logger logs every level, debug included, to l as text.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// StoredRecords waits (up to 2 minutes: room for a loaded machine, issue
// 23) until the SQLite session store at path holds a full record, and
// returns the record_json column of its sessions as stored.
func StoredRecords(t *testing.T, path string) []string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		records, err := readRecords(path)
		if err == nil && len(records) > 0 {
			return records
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session record in the store %s: %v", path, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readRecords(path string) ([]string, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT record_json FROM sessions WHERE record_json IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
