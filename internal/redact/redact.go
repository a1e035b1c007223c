// Package redact removes secrets from tool output before it goes anywhere
// else: model feedback and prompts, session records and the store, logs,
// and LSP messages. Compilers, linters and tests print what the code they
// check holds or what its environment holds, and a test may well echo the
// API key the model is called with.
//
// A Redactor replaces with [Mask]:
//
//   - the values of the environment variables whose names look like
//     secrets (SecretName: API_KEY, APIKEY, TOKEN, SECRET, PASSWORD,
//     PASSWD, PASSPHRASE, CREDENTIAL, PRIVATE_KEY, ACCESS_KEY anywhere in the
//     name, or a name ending in _KEY, _PAT, _PASS or _PWD), of the
//     environment New is given;
//   - the value of every variable named with AddEnv: the configured API key
//     variable (model.apiKeyEnv, --api-key-env), whatever its name;
//   - values given to Add;
//   - the values of a project's secrets files (.env, .env.*, .netrc) and
//     of the user's (~/.netrc, ~/.aws/credentials), once AddProjectOf has
//     read them (files.go says which files, where);
//   - private key blocks: from a "-----BEGIN ... PRIVATE KEY-----" line
//     (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8) or "-----BEGIN PGP
//     PRIVATE KEY BLOCK-----" through its END line, or through the end of
//     the text when the END is missing (the output was cut); an END line
//     whose BEGIN was cut off is redacted with the key material (base64
//     lines) before it.
//
// Values shorter than [MinSecretLen] bytes are not redacted: replacing
// "1" or "true" everywhere would mangle the output and protect nothing.
// Each value is also redacted in its JSON- and Go-quoted forms when they
// differ (a value with quotes or backslashes, as a test framework may print
// it). A secret cut in two by a tool's own truncation of its output is not
// recognised in the part that is left.
//
// A Redactor is safe for concurrent use; values are only ever added, so
// the text once redacted stays redacted. A nil *Redactor redacts private
// key blocks only.
package redact

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Mask replaces every secret.
const Mask = "[redacted]"

// MinSecretLen is the shortest value that is redacted, in bytes.
const MinSecretLen = 8

// Redactor replaces secrets in text with Mask.
type Redactor struct {
	// environ is the environment New was given, by name.
	environ map[string]string

	// mu serialises additions; secrets is replaced whole on each, so that
	// readers never lock.
	mu      sync.Mutex
	secrets atomic.Pointer[[]string] // longest first

	// files is what AddProjectOf has read.
	files fileState
}

// New returns a Redactor for the values of environ's ("NAME=value", as
// os.Environ gives them) secret-looking variables.
func New(environ []string) *Redactor {
	r := &Redactor{environ: make(map[string]string, len(environ))}
	var values []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		r.environ[name] = value
		if SecretName(name) {
			values = append(values, value)
		}
	}
	r.Add(values...)
	return r
}

// SecretName reports whether an environment variable's name says it holds
// a secret.
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, suffix := range []string{"_KEY", "_PAT", "_PASS", "_PWD"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// AddEnv adds the value of the environment variable name, whatever its
// name looks like: the variable that holds the model's API key. It takes
// the value the variable had in the environment New was given and, when it
// differs, its value in the process environment now (os.Getenv, as the
// openai provider reads the key for each session), so that a key set after
// start-up is redacted too. An empty name adds nothing.
func (r *Redactor) AddEnv(name string) {
	if r == nil || name == "" {
		return
	}
	var values []string
	if v, ok := r.environ[name]; ok {
		values = append(values, v)
	}
	if v := os.Getenv(name); v != "" {
		values = append(values, v)
	}
	r.Add(values...)
}

// Add adds secret values; values shorter than MinSecretLen are ignored.
func (r *Redactor) Add(values ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var cur []string
	if p := r.secrets.Load(); p != nil {
		cur = *p
	}
	next := slices.Clone(cur)
	for _, v := range values {
		for _, form := range forms(v) {
			if len(form) >= MinSecretLen && !slices.Contains(next, form) {
				next = append(next, form)
			}
		}
	}
	if len(next) == len(cur) {
		return
	}
	// Longest first, so that a secret that contains another is replaced
	// whole.
	slices.SortStableFunc(next, func(a, b string) int { return len(b) - len(a) })
	r.secrets.Store(&next)
}

// forms are the ways a value may be printed: as it is, and quoted as JSON
// and Go (without the quotes) when that changes it.
func forms(v string) []string {
	out := []string{v}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err == nil {
		if j := strings.TrimSuffix(b.String(), "\n"); len(j) >= 2 {
			out = append(out, j[1:len(j)-1])
		}
	}
	q := strconv.Quote(v)
	out = append(out, q[1:len(q)-1])
	return slices.Compact(out)
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	s = privateKeys(s)
	if r == nil {
		return s
	}
	p := r.secrets.Load()
	if p == nil {
		return s
	}
	for _, v := range *p {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}

// Error returns err with its message redacted: err itself when nothing in
// it is secret, else an error whose Error is the redacted message and that
// unwraps to err, so that errors.Is and errors.As still see what it wraps
// (code that unwraps it and prints the inner error sees that error's own,
// unredacted, text).
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Private key blocks. The label between BEGIN and the dashes says which
// END closes the block.
var (
	keyBegin = regexp.MustCompile(`-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----`)
	keyEnd   = regexp.MustCompile(`-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
)

// privateKeys replaces private key blocks with Mask.
func privateKeys(s string) string {
	if !strings.Contains(s, "PRIVATE KEY") {
		return s
	}
	var b strings.Builder
	for {
		loc := keyBegin.FindStringSubmatchIndex(s)
		if loc == nil {
			break
		}
		b.WriteString(orphanEnds(s[:loc[0]]))
		b.WriteString(Mask)
		end := "-----END " + s[loc[2]:loc[3]] + "-----"
		rest := s[loc[1]:]
		i := strings.Index(rest, end)
		if i < 0 {
			// No END: the key runs to the end of what was kept.
			return b.String()
		}
		s = rest[i+len(end):]
	}
	b.WriteString(orphanEnds(s))
	return b.String()
}

// orphanEnds redacts END lines whose BEGIN is not in s (the head of the
// output was cut off), with the key material before them: the run of
// base64 characters, whitespace and backslashes (of "\n" escapes) that
// ends at the END line.
func orphanEnds(s string) string {
	locs := keyEnd.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, loc := range locs {
		start := loc[0]
		for start > prev && keyMaterial(s[start-1]) {
			start--
		}
		// Keep the whitespace that separated the material from what came
		// before it.
		for start < loc[0] && isSpace(s[start]) {
			start++
		}
		b.WriteString(s[prev:start])
		b.WriteString(Mask)
		prev = loc[1]
	}
	b.WriteString(s[prev:])
	return b.String()
}

func keyMaterial(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '\\' || isSpace(c)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
