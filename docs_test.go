package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/cli"
	"github.com/fixloop/fixloop/runner/golang/golist"
)

// TestMain lets a candidate's confined go list run this binary, as main
// does.
func TestMain(m *testing.M) {
	golist.Serve()
	os.Exit(m.Run())
}

// docFiles are the pages a newcomer reads: the README, docs/ and the
// editors' READMEs.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	editors, err := filepath.Glob(filepath.Join("editors", "*", "README.md"))
	if err != nil || len(editors) < 2 {
		t.Fatalf("the editors' READMEs: %v, %v", editors, err)
	}
	return append(append([]string{"README.md"}, files...), editors...)
}

// mdLink matches an inline link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks checks that every relative link of the README and docs/
// names a file or folder of the tree and, with a #fragment into a Markdown
// page, one of its headings.
func TestDocLinks(t *testing.T) {
	for _, page := range docFiles(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(withoutCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if frag != "" && strings.HasSuffix(file, ".md") && !hasAnchor(t, file, frag) {
				t.Errorf("%s: link %q: %s has no heading with that anchor", page, target, file)
			}
		}
	}
}

// withoutCode drops fenced code blocks, whose brackets are not links.
func withoutCode(text string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// hasAnchor reports whether a heading of the Markdown file gives the
// anchor frag, as GitHub derives anchors.
func hasAnchor(t *testing.T, file, frag string) bool {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(withoutCode(string(text)), "\n") {
		if h, ok := strings.CutPrefix(line, "#"); ok && anchor(strings.TrimLeft(h, "#")) == frag {
			return true
		}
	}
	return false
}

// anchor is GitHub's anchor of a heading: lower case, spaces as hyphens,
// punctuation other than hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		" Sessions for teams and evaluators: store, replay, report": "sessions-for-teams-and-evaluators-store-replay-report",
		" `fixloop fix`":                 "fixloop-fix",
		" Evaluations: `fixloop eval`":   "evaluations-fixloop-eval",
		" Installing the tools":          "installing-the-tools",
		" Files outside the workspace":   "files-outside-the-workspace",
		" Coding agents (MCP)":           "coding-agents-mcp",
		" How time is counted":           "how-time-is-counted",
		" Minimal results: hunks, ddmin": "minimal-results-hunks-ddmin",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// shCommand matches a fixloop command at the start of a line of a sh
// block, run as `fixloop` or `go run .`.
var shCommand = regexp.MustCompile(`^(?:fixloop|go run \.)\s+([a-z][a-z-]*)`)

// TestREADMECommandsExist checks that every fixloop command in the
// README's sh blocks is one the binary has.
func TestREADMECommandsExist(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	in, seen := false, 0
	for _, line := range strings.Split(string(text), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```sh"):
			in = true
			continue
		case strings.HasPrefix(trimmed, "```"):
			in = false
			continue
		}
		if !in {
			continue
		}
		m := shCommand.FindStringSubmatch(trimmed)
		if m == nil {
			continue
		}
		seen++
		var out, errOut bytes.Buffer
		code := cli.Main([]string{"help", m[1]}, strings.NewReader(""), &out, &errOut)
		// cobra answers an unknown topic with the root's usage and exit 0:
		// the command's own usage line is what shows that it exists.
		if code != 0 || !strings.Contains(out.String()+errOut.String(), "Usage:\n  fixloop "+m[1]) {
			t.Errorf("README runs `fixloop %s`, which `fixloop help %s` does not know (exit %d):\n%s%s", m[1], m[1], code, out.String(), errOut.String())
		}
	}
	if seen == 0 {
		t.Error("no fixloop command found in the README's sh blocks")
	}
}

// TestREADMEFirstScreen runs the README's first command as a newcomer
// would and compares what it prints with the output the README shows
// (its "..." lines stand for lines left out), and runs the commands of
// the Install block that need no network.
func TestREADMEFirstScreen(t *testing.T) {
	for _, v := range []string{"FIXLOOP_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"} {
		t.Setenv(v, "")
	}
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(text)
	first := "go run . fix testdata/calc/tally/tally.go"
	if !strings.Contains(readme, "```sh\n"+first+" ") {
		t.Fatalf("the README's first command is no longer %q", first)
	}
	start := strings.Index(readme, "```\nfixloop refactor ")
	if start < 0 {
		t.Fatal("the README no longer shows the first command's output")
	}
	block := readme[start+4:]
	block = block[:strings.Index(block, "```")]

	var out, errOut bytes.Buffer
	code := cli.Main(strings.Fields(strings.TrimPrefix(first, "go run . ")), strings.NewReader(""), &out, &errOut)
	if code != 0 {
		t.Fatalf("%s: exit %d, want 0\n%s%s", first, code, out.String(), errOut.String())
	}
	got := strings.Split(out.String(), "\n")
	i := 0
	for _, want := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		if strings.TrimSpace(want) == "..." {
			continue
		}
		for i < len(got) && got[i] != want {
			i++
		}
		if i == len(got) {
			t.Fatalf("the README shows the line %q, which the command does not print (in that order):\n%s", want, out.String())
		}
		i++
	}

	for _, args := range [][]string{{"version"}, {"check", "--tools"}} {
		var out, errOut bytes.Buffer
		if code := cli.Main(args, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Errorf("fixloop %s: exit %d, want 0\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
	}
}

// TestREADMETestCommands checks the README's two test commands for
// contributors (issue 28): the full one, ./test.sh, which runs the Go
// packages with -race and the editors' suites, as the README says, and the
// fast subset, go test ./... without -race, which docs/testing.md explains;
// and that the README stays short.
func TestREADMETestCommands(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(text)
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("README.md has %d lines, want at most 200: details go in docs/", n)
	}
	_, block, _ := strings.Cut(readme, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var full, fast string
	for _, line := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(line, "./test.sh "):
			full = line
		case strings.HasPrefix(line, "go test ./... "):
			fast = line
		}
	}
	if full == "" || !strings.Contains(full, "-race") {
		t.Errorf("the README's first block has no ./test.sh line saying it runs -race: %q", full)
	}
	if fast == "" || strings.Contains(strings.Split(fast, "#")[0], "-race") || !strings.Contains(fast, "docs/testing.md") {
		t.Errorf("the README's first block has no fast `go test ./...` line (without -race, pointing to docs/testing.md): %q", fast)
	}
	script, err := os.ReadFile("test.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go test -race", "editors/nvim/test/run.sh", "editors/vscode"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("test.sh does not run %q, which the README says it does", want)
		}
	}
	guide, err := os.ReadFile(filepath.Join("docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guide), "`go test ./...` is the faster subset") {
		t.Error("docs/testing.md does not explain the README's fast subset")
	}
}
