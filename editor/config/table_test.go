package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestDefaultFromTable checks that the table's defaults are the constants
// the rest of fixloop names.
func TestDefaultFromTable(t *testing.T) {
	want := Config{
		Debounce:        DefaultDebounce,
		Tests:           Tests{Mode: TestsOnOpenAndSave, Timeout: DefaultTestTimeout},
		MaxFileSize:     DefaultMaxFileSize,
		MaxDocumentSize: DefaultMaxDocumentSize,
		Model:           Model{APIKeyEnv: DefaultAPIKeyEnv, Timeout: DefaultModelTimeout},
		Rounds:          Rounds{Repair: 10, Refactor: 3},
		Minimize:        Minimize{Enabled: true, MaxChecks: 12, Budget: 2 * time.Minute, Share: 0.4},
		Stuck:           Stuck{Repeats: 2, SameFeedback: 3},
		ApplyMode:       ApplyAtOnce,
		Store:           Store{Mode: "full"},
		Python:          Python{Tools: PythonWarm},
		Cpp:             Cpp{Tools: CppWarm},
		Java:            Java{Checkstyle: CheckstyleSun, Tools: JavaWarm},
		Judge: Judge{
			Dir:         DefaultJudgeDir,
			TimeLimit:   DefaultJudgeTimeLimit,
			MemoryLimit: DefaultJudgeMemoryLimit,
			Compare:     CompareWhitespace,
			Mode:        JudgeAuto,
		},
		Sandbox: SandboxBubblewrap,
	}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %+v, want %+v", got, want)
	}
	// Default returns a copy: changing it does not change the next one.
	d := Default()
	d.Judge.Build = append(d.Judge.Build, "x")
	d.Debounce = 0
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() after a change to a copy = %+v", got)
	}
}

// TestTablesWellFormed checks each table: keys unique, documented, typed,
// and no key both a setting and a map of settings.
func TestTablesWellFormed(t *testing.T) {
	checkTable(t, "settings", settings())
	checkTable(t, "linters[]", linterSettings())
	checkTable(t, "linters[].json", linterJSONSettings())
	checkTable(t, "judge.cases[]", judgeCaseSettings())
}

func checkTable[T any](t *testing.T, name string, table []setting[T]) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range table {
		if seen[s.Key] {
			t.Errorf("%s: key %q twice", name, s.Key)
		}
		seen[s.Key] = true
		if strings.TrimSpace(s.Doc) == "" {
			t.Errorf("%s: key %q has no doc", name, s.Key)
		}
		if s.typ.name == "" || len(s.typ.json) == 0 || s.set == nil {
			t.Errorf("%s: key %q has no type or applier", name, s.Key)
		}
	}
	for k := range seen {
		for p := k; strings.Contains(p, "."); {
			p = p[:strings.LastIndex(p, ".")]
			if seen[p] {
				t.Errorf("%s: %q is a setting and holds %q", name, p, k)
			}
		}
	}
}
