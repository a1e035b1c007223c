package cpp

import (
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

func textWorkspace(text string) *workspace {
	return &workspace{origDir: "/p", file: "/p/a.cc", text: []byte(text)}
}

// rangeOf returns the LSP range (0-based, byte columns) of the first sub
// in text, from its start to the end of the last, through.
func rangeOf(t *testing.T, text, from, through string) lspRange {
	t.Helper()
	ix := runner.NewLines([]byte(text))
	s := indexOf(t, text, from)
	e := indexOf(t, text, through) + len(through)
	sl, sc := ix.LineCol(s)
	el, ec := ix.LineCol(e)
	return lspRange{Start: lspPosition{Line: sl - 1, Character: sc - 1}, End: lspPosition{Line: el - 1, Character: ec - 1}}
}

func indexOf(t *testing.T, text, sub string) int {
	t.Helper()
	for i := 0; i+len(sub) <= len(text); i++ {
		if text[i:i+len(sub)] == sub {
			return i
		}
	}
	t.Fatalf("%q is not in the text", sub)
	return -1
}

func TestPlaceSimplifyBoolean(t *testing.T) {
	tests := []struct {
		name, text, msg, from, through string
		line, col                      int
		ok                             bool
	}{
		{"compound return", "bool f(int x) {\n  if (x > 0) {\n    return true;\n  }\n  return false;\n}\n",
			"redundant boolean literal in conditional return statement", "if", "return false;", 3, 12, true},
		{"a literal in the condition", "bool f(bool x) {\n  if (x == true) return true;\n  return false;\n}\n",
			"redundant boolean literal in conditional return statement", "if", "return false;", 2, 25, true},
		{"a lambda first", "bool f() {\n  if ([] { return true; }()) return true;\n  return false;\n}\n",
			"redundant boolean literal in conditional return statement", "if", "return false;", 0, 0, false},
		{"ternary", "bool f(int x) { return (x < 0) ? true : false; }\n",
			"redundant boolean literal in ternary expression result", "(x < 0)", "false", 1, 34, true},
		{"ternary in a ternary's condition", "bool f(int x) { return (x ? 1 : 2) == 1 ? false : true; }\n",
			"redundant boolean literal in ternary expression result", "(x ?", "true", 1, 43, true},
		{"the literal's own range", "bool f() {\n  return true;\n}\n",
			"redundant boolean literal in conditional return statement", "true", "true", 2, 10, true},
		{"another message", "bool f(bool x) { return x == true; }\n",
			"redundant boolean literal supplied to boolean operator", "x == true", "x == true", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := textWorkspace(tt.text)
			line, col, ok := placeSimplifyBoolean(ws, tt.msg, rangeOf(t, tt.text, tt.from, tt.through))
			if ok != tt.ok || ok && (line != tt.line || col != tt.col) {
				t.Errorf("got %d:%d %v, want %d:%d %v", line, col, ok, tt.line, tt.col, tt.ok)
			}
		})
	}
}

func TestAfterPreviousToken(t *testing.T) {
	tests := []struct {
		name, text string
		line, col  int
		wl, wc     int
	}{
		{"a brace at a line's end", "  }\n  else {\n", 2, 3, 1, 4},
		{"Windows line ends", "  }\r\n  else {\r\n", 2, 3, 1, 4},
		{"no white space before", "}else {\n", 1, 2, 1, 2},
		{"on white space (a comment followed)", "} // c\n", 1, 2, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := afterPreviousToken(textWorkspace(tt.text), tt.line, tt.col)
			if l != tt.wl || c != tt.wc {
				t.Errorf("got %d:%d, want %d:%d", l, c, tt.wl, tt.wc)
			}
		})
	}
}

func TestMovedFromHeader(t *testing.T) {
	doc := "/s/a.cc"
	at := func(line, char int) lspRange {
		return lspRange{Start: lspPosition{Line: line, Character: char}, End: lspPosition{Line: line, Character: char + 3}}
	}
	related := func(uri string, r lspRange) lspRelated {
		var rel lspRelated
		rel.Location.URI, rel.Location.Range = uri, r
		return rel
	}
	tests := []struct {
		name string
		d    lspDiagnostic
		want bool
	}{
		{"its note in the file, at its range", lspDiagnostic{Range: at(4, 2), RelatedInformation: []lspRelated{related("file:///s/a.cc", at(4, 2))}}, true},
		{"a note in a header first", lspDiagnostic{Range: at(4, 2), RelatedInformation: []lspRelated{related("file:///s/a.h", at(1, 0)), related("file:///s/a.cc", at(4, 2))}}, true},
		{"its note elsewhere in the file", lspDiagnostic{Range: at(4, 2), RelatedInformation: []lspRelated{related("file:///s/a.cc", at(9, 2))}}, false},
		{"no notes", lspDiagnostic{Range: at(4, 2)}, false},
	}
	for _, tt := range tests {
		if got := movedFromHeader(tt.d, doc); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestMacroSpans(t *testing.T) {
	text := "#define SCAN sscanf\n#define SQ(x) ((x) * (x))\nint a = SCAN(s, \"%d\", &v) + SQ(f(1, 2)) + NULL;\n"
	ix := runner.NewLines([]byte(text))
	pos := func(sub string) (int, int) {
		l, c := ix.LineCol(indexOf(t, text, sub))
		return l - 1, c - 1
	}
	// Tokens: SCAN, SQ, NULL on line 3, of type 7 (macro); one of type 2.
	l1, c1 := pos("SCAN(s")
	_, c2 := pos("SQ(f")
	_, c3 := pos("NULL")
	data := []int{l1, c1, 4, 7, 0, 0, c2 - c1, 2, 7, 0, 0, 3, 1, 2, 0, 0, c3 - c2 - 3, 4, 7, 0}
	spans := decodeMacroSpans([]byte(text), data, 7, objectLikeMacros(scanDirectives([]byte(text))))
	if len(spans) != 3 {
		t.Fatalf("spans %+v, want 3", spans)
	}
	scan := indexOf(t, text, "SCAN(s")
	sq := indexOf(t, text, "SQ(f")
	null := indexOf(t, text, "NULL")
	want := []macroSpan{
		{scan, scan + 4}, // object-like: its name only
		{sq, indexOf(t, text, ") + NULL") + 1},
		{null, null + 4},
	}
	for i := range want {
		if spans[i] != want[i] {
			t.Errorf("span %d: got %+v, want %+v", i, spans[i], want[i])
		}
	}
	if !inMacro(spans, indexOf(t, text, "f(1")) || inMacro(spans, indexOf(t, text, "&v")) {
		t.Error("inMacro: the arguments of SQ are in it, those of SCAN's call not")
	}
}

func TestArgumentsEnd(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"M(a, (b), \")\", ')') rest", 19},
		{"M /* c */ (x) rest", 13},
		{"M\n  (x)", 7},
		{"M + 1", 1},
		{"M(unclosed", 10},
	}
	for _, tt := range tests {
		if got := argumentsEnd([]byte(tt.text), 1); got != tt.want {
			t.Errorf("argumentsEnd(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestSemanticTokenLegend(t *testing.T) {
	if got := semanticTokenLegend([]byte(`{"capabilities":{"semanticTokensProvider":{"legend":{"tokenTypes":["variable","macro"]}}}}`)); got != 1 {
		t.Errorf("got %d, want 1", got)
	}
	if got := semanticTokenLegend([]byte(`{"capabilities":{}}`)); got != -1 {
		t.Errorf("got %d, want -1", got)
	}
}

func TestSlowClangdGoesCold(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name  string
		steps func(p *WarmPool)
		skip  bool
	}{
		{"no measure", func(p *WarmPool) {}, false},
		{"clangd faster, then", func(p *WarmPool) { p.tookCold("f", 700*ms, 0); p.tookClangd("f", 300*ms) }, false},
		{"clangd slower", func(p *WarmPool) { p.tookCold("f", 700*ms, 0); p.tookClangd("f", 900*ms) }, true},
		{"a preamble built (unknown)", func(p *WarmPool) { p.tookCold("f", 700*ms, 0); p.tookClangd("f", 0) }, false},
		{"early result, clangd slower", func(p *WarmPool) { p.tookCold("f", 700*ms, 800*ms) }, true},
		{"early result, clangd faster", func(p *WarmPool) { p.tookCold("f", 700*ms, 200*ms) }, false},
		{"another file", func(p *WarmPool) { p.tookCold("g", 700*ms, 800*ms) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewWarmPool()
			defer p.Close()
			tt.steps(p)
			if got := p.skipClangd("f"); got != tt.skip {
				t.Errorf("skipClangd = %v, want %v", got, tt.skip)
			}
			if tt.skip {
				for range slowStreak - 1 {
					p.skipClangd("f")
				}
				if p.skipClangd("f") {
					t.Errorf("still skipped after %d checks", slowStreak)
				}
			}
		})
	}
}
