package extract

import (
	"errors"
	"strings"
	"testing"
)

func TestCode(t *testing.T) {
	const goFile = "package main\n\nfunc main() {}\n"
	tests := []struct {
		name    string
		reply   string
		lang    string
		want    string
		wantErr error
	}{
		{"one block", "Here it is:\n```go\n" + goFile + "```\n", "go", goFile, nil},
		{"alias in reply", "```golang\n" + goFile + "```", "go", goFile, nil},
		{"alias asked", "```go\n" + goFile + "```", "golang", goFile, nil},
		{"tag case", "```Go\n" + goFile + "```", "go", goFile, nil},
		{"info string words", "```go title=\"main.go\"\n" + goFile + "```", "go", goFile, nil},
		{"tag with file name", "```go:main.go\n" + goFile + "```", "go", goFile, nil},
		{"tag is a file name", "```main.go\n" + goFile + "```", "go", goFile, nil},
		{"pandoc tag", "```{.go}\n" + goFile + "```", "go", goFile, nil},
		{"several: last wins", "First:\n```go\nold\n```\nThen:\n```go\nnew\n```\nDone.", "go", "new\n", nil},
		{"later block in another language ignored", "```go\n" + goFile + "```\nRun it with:\n```sh\ngo run .\n```\n", "go", goFile, nil},
		{"tagged beats a later untagged", "```go\ncode\n```\n```\noutput\n```\n", "go", "code\n", nil},
		{"untagged", "```\n" + goFile + "```\n", "go", goFile, nil},
		{"last untagged", "```\none\n```\n```\ntwo\n```\n", "go", "two\n", nil},
		{"untagged, other languages ignored", "```python\nx = 1\n```\n```\n" + goFile + "```\n", "go", goFile, nil},
		{"python aliases", "```py\nx = 1\n```\n", "python3", "x = 1\n", nil},
		{"cpp aliases", "```c++\nint x;\n```\n", "cpp", "int x;\n", nil},
		{"cpp header", "```hpp\nint x;\n```\n", "c++", "int x;\n", nil},
		{"java", "```java\nclass A {}\n```\n", "java", "class A {}\n", nil},
		{"tildes", "~~~go\n" + goFile + "~~~\n", "go", goFile, nil},
		{"backticks inside a tilde block", "~~~go\ns := \"```\"\n```\nnot a fence here\n~~~\n", "go", "s := \"```\"\n```\nnot a fence here\n", nil},
		{"four backticks hold three", "````go\n// Example:\n```go\nx := 1\n```\n````\n", "go", "// Example:\n```go\nx := 1\n```\n", nil},
		{"longer closing fence", "```go\nx\n`````\n", "go", "x\n", nil},
		{"closing fence with trailing spaces", "```go\nx\n```  \n", "go", "x\n", nil},
		{"closing fence may not carry info", "```go\nx\n```go\ny\n```\n", "go", "x\n```go\ny\n", nil},
		{"tilde does not close backticks", "```go\nx\n~~~\n```\n", "go", "x\n~~~\n", nil},
		{"indented fence", "1. The file:\n   ```go\n   package main\n\n     x\n   ```\n", "go", "package main\n\n  x\n", nil},
		{"four spaces is not a fence", "    ```go\n    x\n    ```\n", "go", "", ErrNoCode},
		{"inline triple backticks are not a fence", "Use ```go run``` to run it.", "go", "", ErrNoCode},
		{"crlf", "Here:\r\n```go\r\npackage main\r\n```\r\nbye\r\n", "go", "package main\r\n", nil},
		{"text after the block", "```go\n" + goFile + "```\nThis change removes the unused variable.\n", "go", goFile, nil},
		{"no final newline after fence", "```go\n" + goFile + "```", "go", goFile, nil},
		{"keeps blank last lines", "```go\nx\n\n```\n", "go", "x\n\n", nil},

		{"no block", "I cannot help with that.", "go", "", ErrNoCode},
		{"empty reply", "", "go", "", ErrNoCode},
		{"wrong language only", "```python\nx = 1\n```\n```sh\nls\n```\n", "go", "", ErrWrongLanguage},
		{"unterminated", "```go\npackage main\n\nfunc main() {\n", "go", "", ErrTruncated},
		{"unterminated untagged", "```\npackage main\n", "go", "", ErrTruncated},
		{"complete then unterminated", "```go\nold\n```\nBetter:\n```go\npackage main\n", "go", "", ErrTruncated},
		{"complete then unterminated other language", "```go\n" + goFile + "```\nRun:\n```sh\ngo ru", "go", goFile, nil},
		{"only unterminated other language", "```sh\ngo ru", "go", "", ErrTruncated},
		{"wrong fence closes nothing", "```go\nx\n~~~", "go", "", ErrTruncated},
		{"empty block", "```go\n```\n", "go", "", ErrEmpty},
		{"blank block", "```go\n  \n\n```\n", "go", "", ErrEmpty},
		{"last block empty", "```go\nx\n```\n```go\n```\n", "go", "", ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Code(tt.reply, tt.lang)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Code error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Code = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCodeWrongLanguageNamesThem(t *testing.T) {
	_, err := Code("```python\nx = 1\n```\n```py\ny = 2\n```\n```bash\nls\n```\n", "golang")
	var wl *WrongLanguageError
	if !errors.As(err, &wl) {
		t.Fatalf("error %v is not a *WrongLanguageError", err)
	}
	if wl.Want != "go" || strings.Join(wl.Found, ",") != "python,bash" {
		t.Errorf("WrongLanguageError = %+v", wl)
	}
	for _, s := range []string{"python", "bash", "go"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q does not name %s", err.Error(), s)
		}
	}
}

// tooLargeReply is a reply of 10 MB, above MaxReply.
func tooLargeReply() string {
	return "```go\n" + strings.Repeat("x := 1\n", 10<<20/7) + "```\n"
}

// TestCodeTooLarge: a reply above MaxReply is rejected before any
// scanning, which it proves by allocating nothing (a unit test asserts no
// wall-clock time, issue 23; BenchmarkCodeTooLarge measures it).
func TestCodeTooLarge(t *testing.T) {
	reply := tooLargeReply()
	_, err := Code(reply, "go")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error = %v, want ErrTooLarge", err)
	}
	if n := testing.AllocsPerRun(3, func() { _, _ = Code(reply, "go") }); n != 0 {
		t.Errorf("rejecting a 10 MB reply made %v allocations, want none: it was scanned", n)
	}
	// Just under the limit is scanned.
	reply = "```go\n" + strings.Repeat("x", MaxReply-len("```go\n\n```")) + "\n```"
	if len(reply) != MaxReply {
		t.Fatalf("test reply is %d bytes", len(reply))
	}
	if got, err := Code(reply, "go"); err != nil || len(got) != MaxReply-len("```go\n```") {
		t.Errorf("reply of MaxReply bytes: %d bytes, %v", len(got), err)
	}
}

// BenchmarkCodeTooLarge measures the rejection of a 10 MB reply (it was a
// test's wall-clock bound, 50 ms).
func BenchmarkCodeTooLarge(b *testing.B) {
	reply := tooLargeReply()
	for b.Loop() {
		if _, err := Code(reply, "go"); !errors.Is(err, ErrTooLarge) {
			b.Fatal(err)
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"go": "go", "Golang": "go", "py": "python", "python3": "python", "Python": "python",
		"c++": "cpp", "cc": "cpp", "cxx": "cpp", "hpp": "cpp", "h": "cpp", "CPP": "cpp",
		"java": "java", "rust": "rust", "": "",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFeedback(t *testing.T) {
	tests := []struct {
		err  error
		lang string
		want string
	}{
		{nil, "go", ""},
		{ErrNoCode, "go", "Your reply had no fenced code block. Answer with the complete file in one ```go block."},
		{ErrEmpty, "golang", "The code block in your reply was empty. Answer with the complete file in one ```go block."},
		{ErrTruncated, "py", "Your reply was cut off: a fenced code block was opened but never closed. Answer again with the complete file in one ```python block, and keep any explanation short so that the whole file fits."},
		{ErrTooLarge, "java", "Your reply was too long (over 4 MiB). Answer with only the complete file in one ```java block, once."},
		{&WrongLanguageError{Want: "cpp", Found: []string{"python"}}, "c++", "Your reply had code blocks only in other languages (python), none in cpp. The file is C++: answer with the complete file in one ```cpp block."},
	}
	for _, tt := range tests {
		if got := Feedback(tt.err, tt.lang); got != tt.want {
			t.Errorf("Feedback(%v, %q)\n got %q\nwant %q", tt.err, tt.lang, got, tt.want)
		}
	}
	// Every error of Code gets feedback that names the block to answer with.
	for _, reply := range []string{"", "```go\n", "```sh\nls\n```", "```go\n```"} {
		_, err := Code(reply, "go")
		if fb := Feedback(err, "go"); !strings.Contains(fb, "```go block") {
			t.Errorf("Feedback for %q = %q", reply, fb)
		}
	}
}

func FuzzCode(f *testing.F) {
	for _, s := range []string{"```go\nx\n```", "~~~\n```\n~~~", "  ```go\r\n  x\r\n  ```", "````\n```\n````"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		got, err := Code(reply, "go")
		if err == nil && strings.TrimSpace(got) == "" {
			t.Errorf("Code(%q) returned blank content without error", reply)
		}
		if err == nil && len(got) > len(reply) {
			t.Errorf("Code(%q) returned more than the reply", reply)
		}
		if err != nil && Feedback(err, "go") == "" {
			t.Errorf("no feedback for %v", err)
		}
	})
}
