package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner/langs/langfixture"
)

// bundledDirs hold the session records shipped with the repository.
var bundledDirs = []string{"testdata/sessions", "testdata/sessions-langs"}

// brokenTail makes a file of each language fail to build.
var brokenTail = map[string]string{
	"python": "\ndef broken(:\n    pass\n",
	"cpp":    "\nint broken( {\n",
	"java":   "\nclass Broken {\n",
}

// recordLangSessions writes testdata/sessions-langs/<language>-repair.json:
// a scripted repair session on each example project, run in a temporary
// repository laid out as this one (so the record names its file by its
// repository path, and the temporary path it ran at is gone, as on any
// other machine): round 1 does not build, round 2 clears lint alerts but
// keeps the bug, round 3 repairs it.
func recordLangSessions(t *testing.T) {
	for _, f := range langfixture.Load(t, "testdata") {
		langfixture.RequireTools(t, f.Tools...)
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "testdata", f.Dir)
		if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", f.Dir))); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, filepath.FromSlash(f.Main))
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		stillBuggy := langfixture.ApplyEdits(t, string(data), f.Lint...)
		repaired := langfixture.ApplyEdits(t, stillBuggy, f.Bug)
		srv := openaitest.New(t,
			openaitest.Reply{Content: openaitest.CodeReply(f.Fence, stillBuggy+brokenTail[f.Name]), PromptTokens: 900, CompletionTokens: 400},
			openaitest.Reply{Content: openaitest.CodeReply(f.Fence, stillBuggy), PromptTokens: 1500, CompletionTokens: 400},
			openaitest.Reply{Content: openaitest.CodeReply(f.Fence, repaired), PromptTokens: 2100, CompletionTokens: 400},
		)
		record := filepath.Join("testdata", "sessions-langs", f.Name+"-repair.json")
		code, out, errOut := run(t, "fix", "--provider", "openai", "--model", "scripted", "--base-url", srv.URL,
			"--api-key-env", "FIXLOOP_LANGS_TEST_KEY", "--store", "off", "--goal", "repair", "--rounds", "3",
			"--record", record, file)
		if code != ExitOK {
			t.Fatalf("fix %s: exit %d\n%s%s", f.Name, code, out, errOut)
		}
	}
}

// TestBundledRecordsReplay: every session record in testdata/sessions*/,
// replayed from the repository root as in a fresh clone, reproduces its
// metrics, from its recorded checks and (--rerun) with today's tools. The
// records were made in temporary directories that are gone: --rerun finds
// the file by the record's repository path. Directories are replayed
// whole, the JSON file beside the records that is not one
// (sessions-langs/langs.json) skipped. Regenerate the language records with
// FIXLOOP_UPDATE_GOLDEN=1 go test -run TestBundledRecordsReplay ./cli/
func TestBundledRecordsReplay(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Chdir("..")
	if os.Getenv("FIXLOOP_UPDATE_GOLDEN") != "" {
		recordLangSessions(t)
	}
	tools := map[string][]string{"go": {"go"}}
	for _, f := range langfixture.Load(t, "testdata") {
		tools[f.Fence] = f.Tools
	}
	var records []string
	for _, dir := range bundledDirs {
		code, out, errOut := run(t, "replay", dir)
		if code != ExitOK {
			t.Errorf("replay %s: exit %d\n%s%s", dir, code, out, errOut)
		}
		if strings.Contains(out+errOut, "schema") || strings.Contains(out+errOut, os.TempDir()) {
			t.Errorf("replay %s names a schema or a temporary path:\n%s%s", dir, out, errOut)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, m := range matches {
			if filepath.Base(m) == "langs.json" {
				if !strings.Contains(errOut, "skipping "+m+": not a session record") {
					t.Errorf("replay %s does not say it skips %s:\n%s", dir, m, errOut)
				}
				continue
			}
			records = append(records, m)
			if !strings.Contains(out, m+": ok: ") || !strings.Contains(out, "metrics match") {
				t.Errorf("replay %s does not replay %s:\n%s", dir, m, out)
			}
		}
	}
	if len(records) < 4 {
		t.Fatalf("bundled records %v, want calc-refactor and one per language", records)
	}
	for _, path := range records {
		t.Run(path, func(t *testing.T) {
			rec, err := refactor.ReadRecord(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(rec.File); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the recorded file %s is on this machine: the record does not test replaying from another checkout", rec.File)
			}
			if _, err := os.Stat(filepath.FromSlash(rec.RepoPath)); err != nil || !strings.HasPrefix(rec.RepoPath, "testdata/") {
				t.Errorf("repository path %q: %v", rec.RepoPath, err)
			}
			// Round 1 of the language sessions does not build: its
			// alerts are not compared.
			if rec.Rounds[0].Verdict == refactor.VerdictCompileError &&
				(rec.Rounds[0].Metrics.Fixed != 0 || rec.Rounds[0].Metrics.New != 0 || rec.Rounds[0].AlertsCompared()) {
				t.Errorf("round 1 does not build, yet counts %+v", rec.Rounds[0].Metrics)
			}
			for _, tool := range tools[rec.Language] {
				if !langfixture.ToolInstalled(tool) {
					t.Skipf("--rerun needs %s, which is not installed", tool)
				}
			}
			code, out, errOut := run(t, "replay", "--rerun", path)
			if code != ExitOK || out != path+": ok: "+strconv.Itoa(len(rec.Rounds))+" rounds, metrics match\n" {
				t.Errorf("replay --rerun %s: exit %d\n%s%s", path, code, out, errOut)
			}
		})
	}
}

// TestReplayNamesOriginalFiles: a replay of a store's sessions names each
// by the store, its id and its file's repository path, never by a
// temporary copy; a record whose project is not here is named by its
// repository path, with where it was looked for.
func TestReplayNamesOriginalFiles(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	golden := filepath.Join("..", "testdata", "sessions", "calc-refactor.json")
	rec, err := refactor.ReadRecord(golden)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "sessions.db")
	if code, out, errOut := run(t, "fix", "--store", db, calcCopy(t)); code != ExitOK {
		t.Fatalf("fix: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run(t, "replay", db)
	if code != ExitOK || !strings.Contains(out, db+": session ") || !strings.Contains(out, "calc.go): ok: 1 rounds, metrics match") {
		t.Errorf("replay of the store: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "fixloop-replay-") {
		t.Errorf("the report names a temporary copy:\n%s", out)
	}

	// The project is nowhere near the record: the message names the file
	// as recorded in its repository.
	elsewhere := *rec
	elsewhere.RepoPath = "testdata/no-such-project/calc.go"
	lone := filepath.Join(t.TempDir(), "lone.json")
	if err := refactor.WriteRecord(lone, &elsewhere); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "replay", "--rerun", lone)
	if code != ExitUsage || !strings.Contains(out, "the recorded file testdata/no-such-project/calc.go is not on this machine (looked for it below ") ||
		strings.Contains(out, rec.File) {
		t.Errorf("--rerun without the project: exit %d\n%s", code, out)
	}

	// Named on the command line, a JSON file that is not a record is an
	// error; so is a directory holding none.
	notRecord := filepath.Join(t.TempDir(), "facts.json")
	os.WriteFile(notRecord, []byte(`{"about": "not a session"}`), 0o644)
	if code, out, _ := run(t, "replay", notRecord, golden); code != ExitUsage || !strings.Contains(out, "facts.json: error: ") ||
		!strings.Contains(out, "not a fixloop session record") || !strings.Contains(out, "calc-refactor.json: ok: 2 rounds, metrics match") {
		t.Errorf("a named non-record, beside a record: exit %d, %s", code, out)
	}
	if code, _, errOut := run(t, "report", notRecord); code != ExitUsage || !strings.Contains(errOut, "not a fixloop session record") {
		t.Errorf("report of a named non-record: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, "replay", filepath.Dir(notRecord)); code != ExitUsage ||
		!slices.ContainsFunc(strings.Split(errOut, "\n"), func(l string) bool { return strings.Contains(l, "no session records in") }) {
		t.Errorf("a directory without records: exit %d, %s", code, errOut)
	}
}
