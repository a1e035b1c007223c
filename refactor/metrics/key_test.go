package metrics

import (
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestNormalizeMessage(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// 1. Leading positions.
		{"leading file:line:col", "x.go:12:3: foo", "foo"},
		{"leading file:line", "x_test.go:12: got 3, want 4", "got 3, want 4"},
		{"leading relative path", "./pkg/x.go:12:3: undefined: y", "undefined: y"},
		{"leading absolute path", "/tmp/fixloop-123/x.go:7:2: declared and not used: v", "declared and not used: v"},
		{"leading windows path", `C:\src\x.go:7:2: missing return`, "missing return"},
		{"leading line:col only", "3:4: expected ';', found 'EOF'", "expected ';', found 'EOF'"},
		{"repeated leading", "a.go:1:2: b.go:3:4: foo", "foo"},
		{"leading on every line", "    x_test.go:12: got 3\n    x_test.go:15: want 4", "got 3 want 4"},
		// 2. Positions inside the message.
		{"position inside", "x redeclared in this block\n\tother declaration of x at ./a.go:5:2", "x redeclared in this block other declaration of x at <pos>"},
		{"java frame", "at Foo.bar(Foo.java:12)", "at Foo.bar(<pos>)"},
		{"two positions", "see a.go:1 and b.go:2:3", "see <pos> and <pos>"},
		// 3. Paths.
		{"absolute path", "open /tmp/fixloop-1/data.txt: no such file", "open <path>: no such file"},
		{"dot path", "cannot find ./testdata/in.txt", "cannot find <path>"},
		{"home path", "reading ~/x.go failed", "reading <path> failed"},
		{"quoted path", `could not import "/abs/pkg"`, `could not import "<path>"`},
		{"import path kept", "package math/rand is deprecated", "package math/rand is deprecated"},
		{"bare file name kept", "file x_test.go has no tests", "file x_test.go has no tests"},
		{"go:build kept", "misplaced //go:build comment", "misplaced //go:build comment"},
		// 4. Line and column words.
		{"shadow", `declaration of "err" shadows declaration at line 40`, `declaration of "err" shadows declaration at line N`},
		{"pylint", "Redefining name 'x' from outer scope (line 3)", "Redefining name 'x' from outer scope (line N)"},
		{"capital Line", "Line 7 is too long", "Line N is too long"},
		{"line range", "duplicate code in lines 3-5", "duplicate code in lines N"},
		{"line to", "lines 3 to 9 repeat", "lines N repeat"},
		{"column", "'{' at column 5 should be on the previous line", "'{' at column N should be on the previous line"},
		{"line and column", "at line 12, column 3", "at line N, column N"},
		{"line colon", "unexpected token at line:12", "unexpected token at line N"},
		{"deadline kept", "deadline 5 exceeded", "deadline 5 exceeded"},
		// Numbers that are part of what the message says.
		{"printf verbs", "fmt.Printf format %d has arg s of wrong type string", "fmt.Printf format %d has arg s of wrong type string"},
		{"arg index", "fmt.Sprintf format %s reads arg #2, but call has 1 arg", "fmt.Sprintf format %s reads arg #2, but call has 1 arg"},
		{"values", "got 3, want 4", "got 3, want 4"},
		{"versions", "min requires go1.21 or later", "min requires go1.21 or later"},
		{"time of day", "expected 12:30:00", "expected 12:30:00"},
		{"field access", "fmt.Println call has possible Printf formatting directive %v", "fmt.Println call has possible Printf formatting directive %v"},
		// 5. Test output.
		{"elapsed", "--- FAIL: TestAdd (0.01s)", "--- FAIL: TestAdd (<dur>)"},
		{"panic trace", "panic: boom\n\ngoroutine 17 [running]:\nmain.f()\n\t/tmp/x/main.go:12 +0x1d", "panic: boom goroutine N [running]: main.f() <pos>"},
		// 6. White space.
		{"white space", "  too\tmany \n spaces ", "too many spaces"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NormalizeMessage(tt.in)
			if got != tt.want {
				t.Errorf("NormalizeMessage(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := NormalizeMessage(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestKeyOf(t *testing.T) {
	a := runner.Alert{File: "/tmp/a/x.go", Line: 3, Column: 2, Source: "staticcheck", Code: "SA4006",
		Message: "this value of err is never used"}
	b := a
	b.File, b.Line, b.Column = "/home/u/p/x.go", 9, 7
	if KeyOf(a) != KeyOf(b) {
		t.Errorf("keys differ by position: %v != %v", KeyOf(a), KeyOf(b))
	}
	c := a
	c.Code = "SA4010"
	if KeyOf(a) == KeyOf(c) {
		t.Error("keys equal despite different rules")
	}
	d := a
	d.Source = "vet"
	if KeyOf(a) == KeyOf(d) {
		t.Error("keys equal despite different tools")
	}
	want := Key{Tool: "vet", Rule: "shadow", Message: `declaration of "err" shadows declaration at line N`}
	got := KeyOf(runner.Alert{Source: "vet", Code: "shadow", Message: `declaration of "err" shadows declaration at line 40`})
	if got != want {
		t.Errorf("KeyOf = %v, want %v", got, want)
	}
}

func FuzzNormalizeMessage(f *testing.F) {
	for _, s := range []string{"x.go:12:3: foo", "at line 40", "a.go:1:2:3:4", "/tmp/x y", "(0.1s) goroutine 3 +0x1", "goroutine  0", "\v/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := NormalizeMessage(msg)
		if again := NormalizeMessage(got); again != got {
			t.Errorf("not idempotent: %q -> %q -> %q", msg, got, again)
		}
	})
}
