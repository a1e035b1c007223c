package cpp

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// corpusFile is one generated C++ file of the differential test, with the
// files next to it.
type corpusFile struct {
	name  string            // its name, relative to its project
	text  string            // its text
	files map[string]string // other files of its project
}

// corpusBlocks are the leading include blocks of generated files (a few,
// so that precompiled headers are reused), and one that is not a plain
// block.
var corpusBlocks = []string{
	"#include <vector>\n#include <string>\n",
	"#include <iostream>\n#include <vector>\n#include <algorithm>\n",
	"// a comment first\n#include <map>\n#include <string>\n#include <memory>\n",
	"#include <cstdio>\n",
	"#include <vector>\n#define LIMIT 10\n#include <string>\n",
	"",
	// Conditionals in the preamble: none a check reads, then one for
	// each check that reads them (use-concise and avoid-unconditional
	// exist in clang-tidy 22 only), then a preamble that ends inside one.
	"#include <vector>\n#if defined(FIXLOOP_A) || defined(FIXLOOP_B)\n#include <cstdio>\n#else\n#include <string>\n#endif\n",
	"#if defined(FIXLOOP_A)\n#include <cstdio>\n#endif\n#include <string>\n",
	"#if 1\n#include <string>\n#endif\n",
	"#ifdef FIXLOOP_A\n#ifdef FIXLOOP_A\n#include <cstdio>\n#endif\n#endif\n#include <string>\n",
	"#include <string>\n#ifndef FIXLOOP_NOPE\nstatic int pre = 1;\n#ifndef FIXLOOP_NOPE\nstatic int again = 2;\n#endif\n#endif\n",
	"#include <vector>\n#if defined(_MSC_VER)\nstatic int msvc = 1;\n#else\nstatic int other = 2;\n#endif\n",
	// Words the checks clangd does not run look for, in comments only.
	"// move, forward and optional, in a comment\n#include <string>\n",
}

// corpusSnippets are pieces of code, each meant to draw out a check
// family or a case of the warm design; %[1]d makes names unique.
var corpusSnippets = []string{
	// readability-braces-around-statements, else-after-return
	"int sign%[1]d(int x) {\n  if (x > 0) return 1;\n  else if (x < 0) return -1;\n  return 0;\n}\n",
	"int loop%[1]d(int n) {\n\tint s = 0;\n\tfor (int i = 0; i < n; i++) s += i;\n\twhile (s > 100) s /= 2;\n\treturn s;\n}\n",
	// modernize-use-nullptr
	"int *ptr%[1]d() { int *p = 0; return p; }\n",
	// modernize-loop-convert, readability-container-size-empty
	"#include <vector>\nint total%[1]d(const std::vector<int> &v) {\n  int t = 0;\n  for (unsigned i = 0; i < v.size(); ++i) { t += v[i]; }\n  if (v.size() == 0) { return -1; }\n  return t;\n}\n",
	// performance-unnecessary-value-param, for-range-copy
	"#include <string>\n#include <vector>\nstd::size_t len%[1]d(std::string s) { return s.size(); }\nstd::size_t sum%[1]d(const std::vector<std::string> &v) {\n  std::size_t n = 0;\n  for (std::string x : v) { n += x.size(); }\n  return n;\n}\n",
	// modernize-use-using, modernize-use-auto
	"#include <map>\ntypedef std::map<int, int> Map%[1]d;\nint first%[1]d(Map%[1]d &m) {\n  std::map<int, int>::iterator it = m.begin();\n  return it == m.end() ? 0 : it->first;\n}\n",
	// bugprone-integer-division, branch-clone
	"double half%[1]d(int a, int b) {\n  double d = a / b;\n  if (a > b) { d += 1; } else { d += 1; }\n  return d;\n}\n",
	// readability-simplify-boolean-expr, redundant-string-cstr
	"#include <string>\nbool yes%[1]d(bool b) {\n  if (b == true) { return true; } else { return false; }\n}\nstd::string same%[1]d(const std::string &s) { return std::string(s.c_str()); }\n",
	// modernize-use-equals-default, use-override
	"struct Base%[1]d {\n  virtual ~Base%[1]d() {}\n  virtual int f() { return 0; }\n};\nstruct Derived%[1]d : Base%[1]d {\n  virtual int f() { return 1; }\n};\n",
	// a compile error: undeclared
	"int broken%[1]d() { return undeclared_thing%[1]d + 1; }\n",
	// a compile error: types
	"#include <string>\nint wrong%[1]d() { std::string s = 42; return s.size(); }\n",
	// a syntax error
	"int syntax%[1]d() { int x = 1 return x; }\n",
	// a missing header
	"#include \"missing_header_%[1]d.h\"\nint after%[1]d() { return 2; }\n",
	// templates
	"template <typename T> T twice%[1]d(T x) { if (x) return x + x; return x; }\nint use%[1]d() { return twice%[1]d(3) + static_cast<int>(twice%[1]d(2.5)); }\n",
	"template <int N> struct Fact%[1]d { static const int value = N * Fact%[1]d<N - 1>::value; };\ntemplate <> struct Fact%[1]d<0> { static const int value = 1; };\nint fact%[1]d() { return Fact%[1]d<10>::value; }\n",
	// a template error
	"template <typename T> int bad%[1]d(T x) { return x.nothing(); }\nint call%[1]d() { return bad%[1]d(1); }\n",
	// macros
	"#define SQR%[1]d(x) ((x) * (x))\nint sq%[1]d(int a) { if (a) return SQR%[1]d(a); return 0; }\n",
	"#define CHECK%[1]d(c) if (c) return -1\nint guard%[1]d(int a) { CHECK%[1]d(a < 0); return a; }\n",
	// unicode before code on a line, in strings and comments
	"// héllo wörld ✓\nconst char *greet%[1]d() { const char *s = \"ünïcödé ✓\"; if (s) return s; return 0; }\n",
	"int /* ✓ */ wide%[1]d(int x) { /* ü */ if (x) return 1; return 2; }\n",
	// std::move (clangd does not run use-after-move)
	"#include <string>\n#include <utility>\nstd::string moved%[1]d(std::string s) {\n  std::string t = std::move(s);\n  return s + t;\n}\n",
	// std::optional
	"#include <optional>\nint opt%[1]d(std::optional<int> o) { return *o; }\n",
	// narrowing, implicit widening
	"long mul%[1]d(int a, int b) { long r = a * b; return r; }\n",
	// emplace, reserve
	"#include <vector>\n#include <utility>\nvoid fill%[1]d(std::vector<std::pair<int, int>> &v) {\n  for (int i = 0; i < 3; ++i) { v.push_back(std::make_pair(i, i)); }\n}\n",
	// a tab before a brace-less statement
	"int tabs%[1]d(int x) {\n\tif (x)\t\treturn 1;\n\treturn 0;\n}\n",
	// C-style casts and magic
	"int cast%[1]d(double d) { return (int)d; }\n",
	// deprecated C headers, a duplicate include after code
	"#include <stdlib.h>\n#include <string.h>\nint cabs%[1]d(int x) { return abs(x) + (int)strlen(\"a\"); }\n",
	"#include <vector>\nint dup%[1]d() { return 1; }\n#include <vector> // again\n",
	// a macro after code, with and without parentheses
	"#define ADD%[1]d(a, b) a + b\nint add%[1]d() { return ADD%[1]d(1, 2) * 3; }\n",
	// nested braces on one line with comments
	"int cmt%[1]d(int x) { if (x) return 1; // one\n  return 0; }\n",
	// NULL, a macro of the system's (use-nullptr warns where it is)
	"#include <cstddef>\nint *nul%[1]d() { return NULL; }\n",
	// simplify-boolean-expr: a conditional return, a ternary
	"bool pos%[1]d(int x) {\n  if (x > 0) {\n    return true;\n  }\n  return false;\n}\n",
	"bool neg%[1]d(int x) { bool b = (x < 0) ? true : false; return b; }\n",
	// branch-clone's notes past a brace at the end of a line
	"int chain%[1]d(int x) {\n  int r = 0;\n  if (x == 1) {\n    r = 2;\n  }\n  else if (x == 2) {\n    r = 2;\n  }\n  return r;\n}\n",
	// a cast in the call an object-like macro names, a warning in a
	// macro's expansion
	"#include <cstdio>\n#define PRINTF%[1]d printf\nvoid out%[1]d(double d) { PRINTF%[1]d(\"%%d\", (int)d); }\n",
	"#include <cstdio>\n#define SCAN%[1]d sscanf\nint in%[1]d(const char *s) { int v = 0; if (SCAN%[1]d(s, \"%%d\", &v) == 1) { return v; } return 0; }\n",
}

// corpusHeaders are headers next to a file, and what the file then adds
// (its definitions).
var corpusHeaders = []struct{ header, source string }{
	{"#pragma once\n#include <string>\nstd::size_t hlen(std::string s);\n", "#include \"util.h\"\nstd::size_t hlen(std::string s) { return s.size(); }\n"},
	{"#ifndef UTIL_H\n#define UTIL_H\nint hval(int x);\n#endif\n", "#include \"util.h\"\nint hval(int x) { if (x) return 1; return 0; }\n"},
	{"#pragma once\n#define HMOVE(x) std::move(x)\n", "#include <utility>\n#include <string>\n#include \"util.h\"\nstd::string hm(std::string s) { std::string t = HMOVE(s); return s + t; }\n"},
	// a warning in the header (other parameter names), whose note is in
	// the file
	{"#pragma once\nint hdiff(int first);\n", "#include \"util.h\"\nint hdiff(int second) { return second; }\n"},
}

// generateCorpus returns n C++ files made from the blocks, snippets and
// headers above, deterministically (a fixed seed): each a block, two to
// four snippets, sometimes a header next to it, sometimes indented with
// tabs or opened by a unicode comment; some are headers themselves.
func generateCorpus(n int) []corpusFile {
	r := rand.New(rand.NewPCG(29, 7))
	out := make([]corpusFile, 0, n)
	for i := range n {
		var b strings.Builder
		if i%11 == 5 {
			b.WriteString("// Ünïcode at the top: ✓ λ 文字\n")
		}
		b.WriteString(corpusBlocks[r.IntN(len(corpusBlocks))])
		f := corpusFile{name: fmt.Sprintf("f%03d.cc", i), files: map[string]string{}}
		if i%7 == 3 {
			h := corpusHeaders[r.IntN(len(corpusHeaders))]
			f.files["util.h"] = h.header
			b.WriteString(h.source)
		}
		// Each file gets snippet i mod len first, so every snippet is
		// used, then one to three at random.
		picks := []int{i % len(corpusSnippets)}
		for range 1 + r.IntN(3) {
			picks = append(picks, r.IntN(len(corpusSnippets)))
		}
		for k, p := range picks {
			b.WriteString(fmt.Sprintf(corpusSnippets[p], i*10+k))
		}
		// One #include line of each (as code has), but for the
		// snippet that includes twice on purpose.
		var kept []string
		seen := map[string]bool{}
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			if strings.HasPrefix(line, "#include") && seen[line] {
				continue
			}
			seen[line] = true
			kept = append(kept, line)
		}
		text := strings.Join(kept, "")
		if i%9 == 4 {
			text = strings.ReplaceAll(text, "  ", "\t")
		}
		if i%13 == 6 {
			f.name = fmt.Sprintf("f%03d.h", i)
			text = "#pragma once\n" + text
		}
		if i%17 == 8 {
			text = strings.ReplaceAll(text, "\n", "\r\n") // Windows line ends
		}
		f.text = text
		out = append(out, f)
	}
	return out
}
