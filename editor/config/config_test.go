package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeConfig writes content as .fixloop.yaml in a new temp dir and returns
// the file's path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefault(t *testing.T) {
	want := Config{
		Debounce:        150 * time.Millisecond,
		Tests:           Tests{Mode: TestsOnOpenAndSave, Timeout: 60 * time.Second},
		MaxFileSize:     2 * 1024 * 1024,
		MaxDocumentSize: 10_000_000,
		Model:           Model{APIKeyEnv: "OPENAI_API_KEY", Timeout: 2 * time.Minute},
		Rounds:          Rounds{Repair: 10, Refactor: 3},
		Minimize:        Minimize{Enabled: true, MaxChecks: 12, Budget: 2 * time.Minute, Share: 0.4},
		Stuck:           Stuck{Repeats: 2, SameFeedback: 3},
		ApplyMode:       ApplyAtOnce,
		Store:           Store{Mode: "full"},
		Python:          Python{Tools: PythonWarm},
		Cpp:             Cpp{Tools: CppWarm},
		Java:            Java{Checkstyle: "sun", Tools: JavaWarm},
		Judge: Judge{Dir: "tests", TimeLimit: 10 * time.Second, MemoryLimit: 1 << 30,
			Compare: "whitespace", Mode: "auto"},
		Sandbox: SandboxBubblewrap,
	}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %+v, want %+v", got, want)
	}
	if Default().Staticcheck.Checks != nil {
		t.Error("default checks should be nil (staticcheck's defaults)")
	}
	d := Default()
	if d.Python.Linters != nil || d.Cpp.Flags != nil || d.Cpp.Test != nil || d.Judge.Build != nil || d.Judge.Run != nil || d.Linters != nil {
		t.Error("default lists should be nil (the integrator's defaults)")
	}
}

func TestLoadFileValid(t *testing.T) {
	path := writeConfig(t, `# fixloop settings
debounce: 300ms
tests:
  mode: save
  timeout: 2m
staticcheck:
  checks: ["all", "-ST1000"]
maxFileSize: 1048576
maxDocumentSize: 20000000
model:
  name: qwen
  temperature: 0.2
  topP: 0.9
  maxTokens: 4096
  timeout: 30s
rounds:
  repair: 5
  refactor: 2
minimize:
  enabled: false
  maxChecks: 30
  budget: 45
stuck:
  repeats: 0
applyMode: ask
store:
  mode: metrics
`)
	got, ps := LoadFile(path, Default())
	if ps != nil {
		t.Fatalf("unexpected problems:\n%v", ps)
	}
	want := Config{
		Debounce:        300 * time.Millisecond,
		Tests:           Tests{Mode: TestsOnSave, Timeout: 2 * time.Minute},
		Staticcheck:     Staticcheck{Checks: []string{"all", "-ST1000"}},
		MaxFileSize:     1 << 20,
		MaxDocumentSize: 20_000_000,
		Model: Model{Name: "qwen", APIKeyEnv: "OPENAI_API_KEY",
			Temperature: fptr(0.2), TopP: fptr(0.9), MaxTokens: 4096, Timeout: 30 * time.Second},
		Rounds:    Rounds{Repair: 5, Refactor: 2},
		Minimize:  Minimize{Enabled: false, MaxChecks: 30, Budget: 45 * time.Second, Share: 0.4},
		Stuck:     Stuck{Repeats: 0, SameFeedback: 3},
		ApplyMode: ApplyAsk,
		Store:     Store{Mode: "metrics"},
		Python:    Python{Tools: PythonWarm},
		Cpp:       Cpp{Tools: CppWarm},
		Java:      Java{Checkstyle: "sun", Tools: JavaWarm},
		Judge:     Default().Judge,
		Sandbox:   SandboxBubblewrap,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestLoadFileNothingToApply(t *testing.T) {
	base := Default()
	base.Debounce = time.Second
	tests := []struct {
		name    string
		content *string // nil: no file
	}{
		{"missing file", nil},
		{"empty file", ptr("")},
		{"only comments", ptr("# nothing yet\n\n")},
		{"null document", ptr("~\n")},
		{"empty map", ptr("{}\n")},
		{"null values", ptr("debounce:\ntests:\n  mode: ~\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if tt.content != nil {
				path = writeConfig(t, *tt.content)
			}
			got, ps := LoadFile(path, base)
			if ps != nil {
				t.Errorf("unexpected problems:\n%v", ps)
			}
			if !reflect.DeepEqual(got, base) {
				t.Errorf("got %+v, want base %+v", got, base)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestLoadFileMistakes checks that every kind of mistake is reported at the
// right place, with the field and what is allowed.
func TestLoadFileMistakes(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		line, col int
		field     string
		want      []string // substrings of the message
	}{
		{"syntax error", "debounce: 1s\ntests:\n  mode: save\n   timeout: 3s\n", 4, 0, "",
			[]string{"invalid YAML", "mapping values are not allowed"}},
		{"syntax error on line 1", "debounce: 1s: 2s\n", 1, 0, "", []string{"invalid YAML"}},
		{"unclosed flow list", "debounce: 1s\nstaticcheck:\n  checks: [SA1000,\n", 4, 0, "", []string{"invalid YAML"}},
		{"unknown key", "debounce: 1s\ndebouce: 2s\n", 2, 1, "debouce",
			[]string{`unknown key "debouce"`, `did you mean "debounce"?`, "allowed keys: debounce, tests, staticcheck, maxFileSize"}},
		{"unknown key other spelling", "max_file_size: 10\n", 1, 1, "max_file_size",
			[]string{`did you mean "maxFileSize"?`}},
		{"unknown nested key", "tests:\n  mode: save\n  timeot: 3s\n", 3, 3, "tests.timeot",
			[]string{`unknown key "timeot"`, `did you mean "timeout"?`, "allowed keys: mode, timeout"}},
		{"unknown key without suggestion", "colour: red\n", 1, 1, "colour", []string{`unknown key "colour"; allowed keys:`}},
		{"map expected", "tests: yes\n", 1, 8, "tests",
			[]string{"must be a map with keys mode, timeout, wallTimeout, not a string"}},
		{"duration wrong type", "debounce: true\n", 1, 11, "debounce",
			[]string{`must be a duration such as "150ms" or a number of milliseconds, not true/false`}},
		{"bad duration", "debounce: fast\n", 1, 11, "debounce",
			[]string{`"fast" is not a duration`, `"150ms"`, "number of milliseconds"}},
		{"duration without unit", "tests:\n  timeout: \"90\"\n", 2, 12, "tests.timeout",
			[]string{`"90" is not a duration`, `"60s"`, "number of seconds"}},
		{"debounce too long", "debounce: 20s\n", 1, 11, "debounce",
			[]string{"20s is out of range; allowed: 0s to 10s"}},
		{"debounce negative", "debounce: -5ms\n", 1, 11, "debounce",
			[]string{"-5ms is out of range; allowed: 0s to 10s"}},
		{"debounce number too large", "debounce: 100000\n", 1, 11, "debounce",
			[]string{"100000 milliseconds is out of range; allowed: 0s to 10s"}},
		{"timeout zero", "tests:\n  timeout: 0s\n", 2, 12, "tests.timeout",
			[]string{"0s is out of range; allowed: more than 0s, up to 30m"}},
		{"timeout too long", "tests:\n  timeout: 31m\n", 2, 12, "tests.timeout",
			[]string{"31m is out of range", "up to 30m"}},
		{"timeout number too large", "tests:\n  timeout: 4000\n", 2, 12, "tests.timeout",
			[]string{"4000 seconds is out of range"}},
		{"minimize budget too short", "minimize:\n  budget: 500ms\n", 2, 11, "minimize.budget",
			[]string{"500ms is out of range; allowed: 1s to 30m"}},
		{"minimize checks zero", "minimize:\n  maxChecks: 0\n", 2, 14, "minimize.maxChecks",
			[]string{"0 is not a whole number from 1 to 100"}},
		{"minimize enabled not a boolean", "minimize:\n  enabled: sometimes\n", 2, 12, "minimize.enabled",
			[]string{"sometimes"}},
		{"stuck repeats too many", "stuck:\n  repeats: 11\n", 2, 12, "stuck.repeats",
			[]string{"11 is not a whole number from 0 to 10"}},
		{"bad enum", "debounce: 1s\ntests:\n  mode: sometimes\n", 3, 9, "tests.mode",
			[]string{`"sometimes" is not one of off, save, open_save`}},
		{"enum wrong type", "tests:\n  mode: [save]\n", 2, 9, "tests.mode",
			[]string{"a list is not one of off, save, open_save"}},
		{"size not a number", "maxFileSize: 2MB\n", 1, 14, "maxFileSize",
			[]string{`"2MB" is not a whole number of bytes`, "2097152"}},
		{"size fraction", "maxFileSize: 1.5\n", 1, 14, "maxFileSize",
			[]string{"1.5 is not a whole number of bytes"}},
		{"size negative", "maxFileSize: -1\n", 1, 14, "maxFileSize",
			[]string{"-1 is out of range; use a positive number of bytes"}},
		{"checks wrong type", "staticcheck:\n  checks: 3\n", 2, 11, "staticcheck.checks",
			[]string{"must be a list of check names", "not a number"}},
		{"checks bad item", "staticcheck:\n  checks:\n    - SA1000\n    - 42\n", 4, 7, "staticcheck.checks[1]",
			[]string{"42 is not a check name", `"-ST1000"`}},
		{"checks empty string", "staticcheck:\n  checks: \"\"\n", 2, 11, "staticcheck.checks",
			[]string{"names no checks"}},
		{"staticcheck not a map", "staticcheck: [SA1000]\n", 1, 14, "staticcheck",
			[]string{"must be a map with keys checks, not a list"}},
		{"duplicate key", "debounce: 1s\ntests: {}\ndebounce: 2s\n", 3, 1, "debounce",
			[]string{"key appears more than once (first at line 1)"}},
		{"list instead of map", "- debounce: 1s\n- tests: {}\n", 1, 1, "",
			[]string{"the settings must be a map with keys debounce, tests, staticcheck, maxFileSize, maxDocumentSize, maxToolProcesses, model, rounds, minimize, stuck, applyMode, store, python, cpp, java, linters, judge, sandbox, trusted, not a list"}},
		{"scalar instead of map", "debounce\n", 1, 1, "",
			[]string{"the settings must be a map", "not a string"}},
		{"two documents", "debounce: 1s\n---\ndebounce: 2s\n", 2, 1, "",
			[]string{"must hold one YAML document"}},
		{"unknown anchor", "debounce: 1s\ntests: *t\n", 2, 0, "",
			[]string{"unknown anchor 't'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, p := loadOneProblem(t, tt.content)
			if p.Source != path || p.Line != tt.line || p.Column != tt.col || p.Field != tt.field {
				t.Errorf("got %s:%d:%d field %q, want %s:%d:%d field %q",
					p.Source, p.Line, p.Column, p.Field, path, tt.line, tt.col, tt.field)
			}
			s := p.String()
			if !strings.HasPrefix(s, path+":") {
				t.Errorf("String() = %q, does not start with the file", s)
			}
			if tt.field != "" && !strings.Contains(s, ": "+tt.field+": ") {
				t.Errorf("String() = %q, does not name field %q", s, tt.field)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Message, w) {
					t.Errorf("message %q does not contain %q", p.Message, w)
				}
			}
		})
	}
}

func TestProblemStringExample(t *testing.T) {
	p := Problem{Source: "/w/.fixloop.yaml", Line: 3, Column: 9, Field: "tests.mode",
		Message: `"sometimes" is not one of off, save, open_save`}
	want := `/w/.fixloop.yaml:3:9: tests.mode: "sometimes" is not one of off, save, open_save`
	if got := p.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	path := writeConfig(t, "debounce: 1s\ntests:\n  mode: sometimes\n")
	_, ps := LoadFile(path, Default())
	want = path + `:3:9: tests.mode: "sometimes" is not one of off, save, open_save`
	if len(ps) != 1 || ps[0].String() != want {
		t.Errorf("got %v, want %q", ps, want)
	}
}

func TestProblemFormats(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{Source: "settings", Field: "debounce", Message: "m"}, "settings: debounce: m"},
		{Problem{Source: "f.yaml", Line: 2, Message: "m"}, "f.yaml:2: m"},
		{Problem{Source: "f.yaml", Line: 2, Column: 5, Field: "a.b", Message: "m"}, "f.yaml:2:5: a.b: m"},
		{Problem{Message: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	ps := Problems{tests[0].p, tests[1].p}
	if got, want := ps.Error(), "settings: debounce: m\nf.yaml:2: m"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if ps.Err() == nil {
		t.Error("Err() of two problems is nil")
	}
	if Problems(nil).Err() != nil {
		t.Error("Err() of no problems is not nil")
	}
}

// TestLoadFilePartial checks that valid keys apply next to invalid ones, and
// that invalid ones keep the base value.
func TestLoadFilePartial(t *testing.T) {
	path := writeConfig(t, `debounce: forever
tests:
  mode: save
  timeout: -1s
staticcheck:
  checks: [SA1000, {}]
maxFileSize: 4096
colour: red
`)
	base := Default()
	base.Staticcheck.Checks = []string{"inherit"}
	got, ps := LoadFile(path, base)
	want := base
	want.Tests.Mode = TestsOnSave
	want.MaxFileSize = 4096
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	fields := make([]string, len(ps))
	for i, p := range ps {
		fields[i] = p.Field
	}
	wantFields := []string{"debounce", "tests.timeout", "staticcheck.checks[1]", "colour"}
	if !reflect.DeepEqual(fields, wantFields) {
		t.Errorf("problem fields = %q, want %q\n%v", fields, wantFields, ps)
	}
}

func TestLoadFileUnreadable(t *testing.T) {
	dir := t.TempDir() // a directory where the file should be
	base := Default()
	got, ps := LoadFile(dir, base)
	if len(ps) != 1 || !strings.Contains(ps[0].String(), dir+": cannot read the file") {
		t.Errorf("got %v", ps)
	}
	if !reflect.DeepEqual(got, base) {
		t.Errorf("config changed: %+v", got)
	}
}

// TestNumbersAndDurations checks both forms of every duration, in YAML and
// JSON alike.
func TestNumbersAndDurations(t *testing.T) {
	tests := []struct {
		yaml, json string
		get        func(Config) time.Duration
		want       time.Duration
	}{
		{"debounce: 250ms", `{"debounce": "250ms"}`, getDebounce, 250 * time.Millisecond},
		{"debounce: 250", `{"debounce": 250}`, getDebounce, 250 * time.Millisecond},
		{"debounce: 0", `{"debounce": 0}`, getDebounce, 0},
		{"debounce: 0.5", `{"debounce": 0.5}`, getDebounce, 500 * time.Microsecond},
		{"debounce: 1.5s", `{"debounce": "1.5s"}`, getDebounce, 1500 * time.Millisecond},
		{"debounce: 10s", `{"debounce": 10000}`, getDebounce, 10 * time.Second},
		{"tests: {timeout: 90s}", `{"tests": {"timeout": "90s"}}`, getTimeout, 90 * time.Second},
		{"tests: {timeout: 90}", `{"tests": {"timeout": 90}}`, getTimeout, 90 * time.Second},
		{"tests: {timeout: 2m30s}", `{"tests": {"timeout": 1.5e2}}`, getTimeout, 150 * time.Second},
		{"tests: {timeout: 30m}", `{"tests": {"timeout": 1800}}`, getTimeout, 30 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			fromFile, ps := LoadFile(writeConfig(t, tt.yaml+"\n"), Default())
			if ps != nil {
				t.Fatalf("yaml problems:\n%v", ps)
			}
			if got := tt.get(fromFile); got != tt.want {
				t.Errorf("yaml %q: got %v, want %v", tt.yaml, got, tt.want)
			}
			fromJSON, ps := ApplySettings(Default(), []byte(tt.json), "settings")
			if ps != nil {
				t.Fatalf("json problems:\n%v", ps)
			}
			if got := tt.get(fromJSON); got != tt.want {
				t.Errorf("json %s: got %v, want %v", tt.json, got, tt.want)
			}
		})
	}
}

func getDebounce(c Config) time.Duration { return c.Debounce }
func getTimeout(c Config) time.Duration  { return c.Tests.Timeout }

func TestYAMLSpellings(t *testing.T) {
	tests := []struct {
		content string
		check   func(Config) bool
	}{
		{"tests: {mode: off}", func(c Config) bool { return c.Tests.Mode == TestsOff }},
		{"tests: {mode: 'open_save'}", func(c Config) bool { return c.Tests.Mode == TestsOnOpenAndSave }},
		{"maxFileSize: 0x1000", func(c Config) bool { return c.MaxFileSize == 4096 }},
		{"maxFileSize: 1_000_000", func(c Config) bool { return c.MaxFileSize == 1_000_000 }},
		{"staticcheck: {checks: 'all, -ST1000'}", func(c Config) bool {
			return reflect.DeepEqual(c.Staticcheck.Checks, []string{"all", "-ST1000"})
		}},
		{"staticcheck: {checks: []}", func(c Config) bool {
			return c.Staticcheck.Checks != nil && len(c.Staticcheck.Checks) == 0
		}},
		{"base: &b 2s\ndebounce: *b", func(c Config) bool { return false }}, // "base" is unknown
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			got, ps := LoadFile(writeConfig(t, tt.content+"\n"), Default())
			if strings.HasPrefix(tt.content, "base:") {
				if len(ps) != 1 || ps[0].Field != "base" || got.Debounce != 2*time.Second {
					t.Errorf("alias: got %v, problems %v", got.Debounce, ps)
				}
				return
			}
			if ps != nil {
				t.Fatalf("problems:\n%v", ps)
			}
			if !tt.check(got) {
				t.Errorf("unexpected config %+v", got)
			}
		})
	}
}

func fptr(v float32) *float32 { return &v }

func TestSessionSettingMistakes(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"the file may not redirect the key", "model:\n  baseUrl: https://elsewhere/v1\n", "model.baseUrl: cannot be set in .fixloop.yaml"},
		{"the file may not choose the key variable", "model:\n  apiKeyEnv: GITHUB_TOKEN\n", "model.apiKeyEnv: cannot be set in .fixloop.yaml"},
		{"the file may not choose the store", "store:\n  dsn: postgres://x@y/z\n", "store.dsn: cannot be set in .fixloop.yaml"},
		{"a store of the wrong type is that first", "store:\n  dsn: 5\n", "store.dsn: 5 is not a string"},
		{"the sandbox is the editor's whatever its type", "sandbox: 5\n", "sandbox: cannot be set in .fixloop.yaml"},
		{"the file may not turn the sandbox off", "sandbox: none\n", "sandbox: cannot be set in .fixloop.yaml"},
		{"sandbox mode", "sandbox: docker\n", "cannot be set in .fixloop.yaml"},
		{"the file may not trust its own repository", "trusted: true\n", "trusted: cannot be set in .fixloop.yaml"},
		{"temperature out of range", "model:\n  temperature: 3\n", "not a number from 0 to 2"},
		{"rounds zero", "rounds:\n  repair: 0\n", "not a whole number from 1 to 50"},
		{"apply mode", "applyMode: maybe\n", "is not one of apply, ask"},
		{"store mode", "store:\n  mode: some\n", "is not one of full, metrics"},
		{"unknown model key", "model:\n  nmae: x\n", "did you mean \"name\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := LoadFile(writeConfig(t, tt.yaml), Default())
			if len(ps) != 1 || !strings.Contains(ps[0].String(), tt.want) {
				t.Errorf("problems %v, want one containing %q", ps, tt.want)
			}
		})
	}
}

// TestEditorSettingsMayChooseEndpointAndStore: what the workspace file may
// not set, the user's own settings may.
func TestEditorSettingsMayChooseEndpointAndStore(t *testing.T) {
	got, ps := ApplySettings(Default(), []byte(`{"model": {"baseUrl": "http://127.0.0.1:8080/v1", "apiKeyEnv": "MY_KEY"}, "store": {"dsn": "postgres://team@db/fixloop"}}`), "settings")
	if ps != nil {
		t.Fatal(ps)
	}
	if got.Model.BaseURL != "http://127.0.0.1:8080/v1" || got.Model.APIKeyEnv != "MY_KEY" || got.Store.DSN != "postgres://team@db/fixloop" {
		t.Errorf("got %+v", got)
	}
	if got, ps := ApplySettings(Default(), []byte(`{"sandbox": "none"}`), "settings"); ps != nil || got.Sandbox != SandboxNone {
		t.Errorf("sandbox none from the editor: %v, %v", got.Sandbox, ps)
	}
	if _, ps := ApplySettings(Default(), []byte(`{"sandbox": "off"}`), "settings"); len(ps) != 1 || !strings.Contains(ps[0].String(), "is not one of bubblewrap, none") {
		t.Errorf("a bad sandbox mode: %v", ps)
	}
	if _, ps := ApplySettings(Default(), []byte(`{"model": {"apiKeyEnv": "sk-123"}}`), "settings"); len(ps) != 1 || !strings.Contains(ps[0].String(), "not an environment variable name") {
		t.Errorf("a key in place of its variable: %v", ps)
	}
}

// loadOneProblem loads content as a settings file and returns its path
// and its one problem; it fails the test unless there is exactly one.
func loadOneProblem(t *testing.T, content string) (string, Problem) {
	t.Helper()
	path := writeConfig(t, content)
	_, ps := LoadFile(path, Default())
	if len(ps) != 1 {
		t.Fatalf("got %d problems, want 1:\n%v", len(ps), ps)
	}
	return path, ps[0]
}

// TestWallLimits: tests.wallTimeout and judge.wallTimeLimit, the
// wall-clock bounds beside the CPU-time limits (issue 23).
func TestWallLimits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("tests:\n  timeout: 30s\n  wallTimeout: 5m\njudge:\n  timeLimit: 1s\n  wallTimeLimit: 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, problems := LoadFile(path, Default())
	if len(problems) > 0 {
		t.Fatalf("LoadFile: %v", problems)
	}
	if cfg.Tests.Timeout != 30*time.Second || cfg.Tests.WallTimeout != 5*time.Minute {
		t.Errorf("tests = %+v, want timeout 30s, wallTimeout 5m", cfg.Tests)
	}
	if cfg.Judge.TimeLimit != time.Second || cfg.Judge.WallTimeLimit != 20*time.Second {
		t.Errorf("judge time limits %v, %v; want 1s, 20s", cfg.Judge.TimeLimit, cfg.Judge.WallTimeLimit)
	}
	if def := Default(); def.Tests.WallTimeout != 0 || def.Judge.WallTimeLimit != 0 {
		t.Errorf("default wall limits %v, %v; want 0 (derived from the CPU limits)", def.Tests.WallTimeout, def.Judge.WallTimeLimit)
	}
}

// TestTrust: the workspace is untrusted unless the editor says otherwise;
// the repository's file cannot say so (TestSessionSettingMistakes), and
// TrustSetting tells a settings change that does not mention trust from
// one that does.
func TestTrust(t *testing.T) {
	if Default().Trusted {
		t.Fatal("the default configuration trusts the workspace")
	}
	cfg, ps := Resolve(t.TempDir(), nil)
	if ps != nil || cfg.Trusted {
		t.Errorf("no settings: trusted %v, problems %v; want false, none", cfg.Trusted, ps)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("trusted: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := Resolve(dir, nil); cfg.Trusted {
		t.Error("the workspace file made itself trusted")
	}
	if cfg, ps := Resolve(dir, []byte(`{"trusted": true}`)); !cfg.Trusted || len(ps) != 1 {
		t.Errorf("the editor's trust: trusted %v, problems %v; want true and the file's one problem", cfg.Trusted, ps)
	}
	if _, ps := ApplySettings(Default(), []byte(`{"trusted": "yes"}`), "settings"); len(ps) != 1 || !strings.Contains(ps[0].String(), "not true or false") {
		t.Errorf("trusted not a boolean: %v", ps)
	}
	tests := []struct {
		settings      string
		trusted, isOK bool
	}{
		{``, false, false},
		{`null`, false, false},
		{`{}`, false, false},
		{`{"tests": {"mode": "off"}}`, false, false},
		{`{"trusted": "yes"}`, false, false},
		{`{"trusted": true}`, true, true},
		{`{"trusted": false, "debounce": "1s"}`, false, true},
		{`{"fixloop": {"trusted": true}}`, true, true},
		{`{"fixloop": {"debounce": "1s"}, "trusted": true}`, true, true},
		{`{"trusted": false, "fixloop": {"trusted": true}}`, true, true},
		{`not json`, false, false},
	}
	for _, tt := range tests {
		trusted, ok := TrustSetting([]byte(tt.settings))
		if trusted != tt.trusted || ok != tt.isOK {
			t.Errorf("TrustSetting(%s) = %v, %v; want %v, %v", tt.settings, trusted, ok, tt.trusted, tt.isOK)
		}
	}
}
