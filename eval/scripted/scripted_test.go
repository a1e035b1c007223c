package scripted

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/refactor"
)

func bundled(t *testing.T) []eval.Problem {
	t.Helper()
	ps, err := eval.Load(filepath.Join("..", "..", "testdata", "eval"))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnswer: each bundled problem's prompt gets its answer from the
// answers folder (a repair problem its correct program, through a link), or
// its file unchanged; an unknown file gets no code.
func TestAnswer(t *testing.T) {
	problems := bundled(t)
	m, err := New(problems, filepath.Join("..", "..", "testdata", "eval-answers"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range problems {
		files[p.ID] = p.File
	}
	tests := []struct {
		problem, want string // want: the file whose text the answer holds
	}{
		{"py-sum-wrong", files["py-sum"]},
		{"cpp-sum-broken", files["cpp-sum"]},
		{"java-sum-broken", files["java-sum"]},
		{"go-tally", filepath.Join("..", "..", "testdata", "eval-answers", "go-tally", "tally.go")},
		{"py-sum", files["py-sum"]}, // no answer: unchanged
	}
	for _, tc := range tests {
		t.Run(tc.problem, func(t *testing.T) {
			prompt := "Refactor this file.\n\n" + refactor.NumberedText(read(t, files[tc.problem])) + "\nAlerts: ..."
			content, id := m.Answer(prompt)
			if id != tc.problem {
				t.Errorf("matched %q, want %q", id, tc.problem)
			}
			if !strings.Contains(content, read(t, tc.want)) {
				t.Errorf("the answer does not hold %s:\n%s", tc.want, content)
			}
		})
	}
	if content, id := m.Answer("1 | print('hello')\n"); id != "" || strings.Contains(content, "```") {
		t.Errorf("an unknown file: matched %q, answered %q", id, content)
	}
}

// TestServeHTTP: the chat endpoint answers as JSON and as a stream, and
// lists its model.
func TestServeHTTP(t *testing.T) {
	problems := bundled(t)
	m, err := New(problems, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	prompt := refactor.NumberedText(read(t, problems[0].File))
	body := func(stream bool) string {
		s := `{"model":"scripted","messages":[{"role":"system","content":"x"},{"role":"user","content":` + quote(prompt) + `}]`
		if stream {
			s += `,"stream":true`
		}
		return s + "}"
	}
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     []string
	}{
		{"json", "POST", "/v1/chat/completions", body(false), 200, []string{`"object":"chat.completion"`, `"finish_reason":"stop"`, `"usage"`}},
		{"stream", "POST", "/v1/chat/completions", body(true), 200, []string{"data: {", `"chat.completion.chunk"`, "data: [DONE]"}},
		{"models", "GET", "/v1/models", "", 200, []string{`"id":"scripted"`}},
		{"bad request", "POST", "/v1/chat/completions", "{", 400, nil},
		{"unknown path", "GET", "/v1/nothing", "", 404, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b := new(strings.Builder)
			_, _ = io.Copy(b, resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("response lacks %q:\n%s", w, b)
				}
			}
		})
	}
}

// TestAnswersFolderWithTwoFiles: an answer folder must hold one file.
func TestAnswersFolderWithTwoFiles(t *testing.T) {
	problems := bundled(t)[:1]
	dir := t.TempDir()
	sub := filepath.Join(dir, problems[0].ID)
	for _, name := range []string{"a.py", "b.py"} {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(problems, dir); err == nil || !strings.Contains(err.Error(), "2 files") {
		t.Errorf("New with two answer files: %v, want an error naming them", err)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
