package refactor

import (
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/metrics"
)

// TestGuess: the first guess keeps a candidate's code changes and leaves
// out what a verbose model adds around them.
func TestGuess(t *testing.T) {
	goOriginal := `package p

func A(x int) int {
	total := x
	x++
	return total + 1
}

func B() int {
	return 2
}

func C(s string) bool {
	return strings.Index(s, "a") != -1
}
`
	cases := []struct {
		name, file, original, candidate string
		// target is a line of the original with an alert the candidate
		// fixed: the hunks on it are kept whatever they look like.
		target int
		// want is the text the guess gives.
		want string
	}{{
		name: "comment, rename, move and a fix", file: "a.go", original: goOriginal,
		candidate: `package p

// A adds one.
func A(x int) int {
	sum := x
	x++
	return sum + 1
}

func C(s string) bool {
	return strings.Contains(s, "a")
}

func B() int {
	return 2
}
`,
		target: 14,
		// C moves above B with its fix: the fix keeps the move.
		want: strings.Replace(goOriginal, "func B() int {\n\treturn 2\n}\n\nfunc C(s string) bool {\n\treturn strings.Index(s, \"a\") != -1\n}\n",
			"func C(s string) bool {\n\treturn strings.Contains(s, \"a\")\n}\n\nfunc B() int {\n\treturn 2\n}\n", 1),
	}, {
		name: "a rename a kept hunk's code uses", file: "a.go", original: goOriginal,
		candidate: strings.NewReplacer("total := x", "sum := x", "return total + 1", "return sum + 2").Replace(goOriginal),
		want:      strings.NewReplacer("total := x", "sum := x", "return total + 1", "return sum + 2").Replace(goOriginal),
	}, {
		name: "a rename a comment mentions", file: "a.go", original: goOriginal,
		candidate: strings.NewReplacer("total := x", "sum := x", "return total + 1", "return sum + 1", "return 2", "return 2 // not the sum").Replace(goOriginal),
		want:      goOriginal,
	}, {
		name: "a method is not a local", file: "a.py", original: "import sys\nprint(sys.stdin.readline())\n",
		candidate: "import sys\nprint(sys.stdin.read())\n",
		want:      "import sys\nprint(sys.stdin.read())\n",
	}, {
		name: "a docstring replaced, kept with its deletion", file: "a.py",
		original:  "\"\"\"Old words.\"\"\"\nimport sys\n",
		candidate: "\"\"\"New text, longer,\nand on two lines.\n\"\"\"\nimport sys\n",
		target:    1,
		want:      "\"\"\"New text, longer,\nand on two lines.\n\"\"\"\nimport sys\n",
	}, {
		name: "python comments and docstrings", file: "a.py",
		original:  "def f(a):\n    return a\n",
		candidate: "# f returns a.\ndef f(a):\n    \"\"\"Return a.\"\"\"\n    return a  # a\n",
		want:      "def f(a):\n    return a\n",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hunks, kinds := metrics.AlignedHunks(c.original, c.candidate)
			x := classify(c.file, c.original, c.candidate, hunks, kinds)
			var keep []int
			for i, h := range hunks {
				if h.ALine < c.target && c.target <= h.ALine+h.ALines {
					keep = append(keep, i)
				}
			}
			got := metrics.Apply(c.original, c.candidate, hunks, x.guess(hunks, keep, nil))
			if got != c.want {
				t.Errorf("guess gives:\n%s\nwant:\n%s\n(kinds %q)", got, c.want, x.kind)
			}
		})
	}
}
