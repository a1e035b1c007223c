package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestApplySettings(t *testing.T) {
	base := Default()
	base.Staticcheck.Checks = []string{"SA*"}
	tests := []struct {
		name string
		raw  string
		edit func(*Config) // what should change from base
	}{
		{"nil", "", func(*Config) {}},
		{"null", "null", func(*Config) {}},
		{"empty object", "{}", func(*Config) {}},
		{"plain", `{"debounce": "50ms", "tests": {"mode": "off"}}`, func(c *Config) {
			c.Debounce = 50 * time.Millisecond
			c.Tests.Mode = TestsOff
		}},
		{"wrapped", `{"fixloop": {"debounce": 75, "maxFileSize": 1024}, "gopls": {"x": 1}}`, func(c *Config) {
			c.Debounce = 75 * time.Millisecond
			c.MaxFileSize = 1024
		}},
		{"wrapped null", `{"fixloop": null}`, func(*Config) {}},
		{"only present keys override", `{"tests": {"timeout": 5}}`, func(c *Config) {
			c.Tests.Timeout = 5 * time.Second // mode stays
		}},
		{"null counts as absent", `{"debounce": null, "tests": {"mode": null}, "staticcheck": {"checks": null}}`, func(*Config) {}},
		{"checks", `{"staticcheck": {"checks": ["all", "-ST1000"]}}`, func(c *Config) {
			c.Staticcheck.Checks = []string{"all", "-ST1000"}
		}},
		{"maxToolProcesses", `{"fixloop": {"maxToolProcesses": 3}}`, func(c *Config) { c.MaxToolProcesses = 3 }},
		{"maxToolProcesses 0 is the default", `{"maxToolProcesses": 0}`, func(c *Config) { c.MaxToolProcesses = 0 }},
		{"all keys", `{"debounce": "1s", "tests": {"mode": "save", "timeout": "10m"}, "staticcheck": {"checks": ["S1000"]}, "maxFileSize": 10}`, func(c *Config) {
			c.Debounce, c.Tests = time.Second, Tests{Mode: TestsOnSave, Timeout: 10 * time.Minute}
			c.Staticcheck, c.MaxFileSize = Staticcheck{Checks: []string{"S1000"}}, 10
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := base
			tt.edit(&want)
			got, ps := ApplySettings(base, []byte(tt.raw), "initializationOptions")
			if ps != nil {
				t.Fatalf("unexpected problems:\n%v", ps)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestApplySettingsMistakes(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		field  string
		want   string
		source string
	}{
		{"invalid JSON", `{"debounce": `, "", "invalid JSON", "settings"},
		{"trailing data", `{} {}`, "", "invalid JSON: unexpected data", "settings"},
		{"not an object", `[1, 2]`, "", "the settings must be a map", "settings"},
		{"wrapped not an object", `{"fixloop": "fast"}`, "fixloop", "must be a map with keys debounce, tests, staticcheck, maxFileSize, maxDocumentSize, maxToolProcesses, model, rounds, minimize, stuck, applyMode, store, python, cpp, java, linters, judge, sandbox, trusted, not a string", "settings"},
		{"unknown key", `{"fixloop": {"debounc": 1}}`, "debounc", `did you mean "debounce"?`, "settings"},
		{"bad enum", `{"tests": {"mode": "always"}}`, "tests.mode", `"always" is not one of off, save, open_save`, "initializationOptions"},
		{"bad duration", `{"debounce": "soon"}`, "debounce", `"soon" is not a duration`, "settings"},
		{"huge number", `{"debounce": 1e400}`, "debounce", "out of range", "settings"},
		{"wrong type", `{"maxFileSize": "big"}`, "maxFileSize", "not a whole number of bytes", "settings"},
		{"maxToolProcesses fraction", `{"maxToolProcesses": 1.5}`, "maxToolProcesses", "1.5 is not a whole number from 0 to 256", "settings"},
		{"maxToolProcesses too many", `{"maxToolProcesses": 1000}`, "maxToolProcesses", "1000 is not a whole number from 0 to 256", "settings"},
		{"maxToolProcesses negative", `{"maxToolProcesses": -1}`, "maxToolProcesses", "is not a whole number from 0 to 256", "settings"},
		{"maxToolProcesses text", `{"maxToolProcesses": "all"}`, "maxToolProcesses", `"all" is not a whole number from 0 to 256`, "settings"},
		{"duplicate key", `{"debounce": 1, "debounce": 2}`, "debounce", "key appears more than once; keep only one", "settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ps := ApplySettings(Default(), []byte(tt.raw), tt.source)
			if len(ps) != 1 {
				t.Fatalf("got %d problems, want 1:\n%v", len(ps), ps)
			}
			p := ps[0]
			if p.Source != tt.source || p.Field != tt.field || p.Line != 0 || p.Column != 0 {
				t.Errorf("got %+v, want source %q field %q and no position", p, tt.source, tt.field)
			}
			if !strings.Contains(p.Message, tt.want) {
				t.Errorf("message %q does not contain %q", p.Message, tt.want)
			}
			if !strings.HasPrefix(p.String(), tt.source+": ") {
				t.Errorf("String() = %q does not start with the source", p.String())
			}
			if tt.name == "duplicate key" && got.Debounce != time.Millisecond {
				t.Errorf("the first of duplicate keys should win, got %v", got.Debounce)
			}
		})
	}
}

func TestApplySettingsPartial(t *testing.T) {
	got, ps := ApplySettings(Default(), []byte(`{"fixloop": {"debounce": -1, "tests": {"mode": "save", "timeout": "2h"}, "maxFileSize": 99}}`), "settings")
	want := Default()
	want.Tests.Mode = TestsOnSave
	want.MaxFileSize = 99
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(ps) != 2 || ps[0].Field != "debounce" || ps[1].Field != "tests.timeout" {
		t.Errorf("problems:\n%v", ps)
	}
}

func TestResolvePrecedence(t *testing.T) {
	root := t.TempDir()
	file := `debounce: 300ms
tests:
  mode: save
  timeout: 2m
maxFileSize: 1000
`
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		root     string
		settings string
		want     func(*Config)
	}{
		{"defaults only", "", "", func(*Config) {}},
		{"no file in root", t.TempDir(), "", func(*Config) {}},
		{"file over defaults", root, "", func(c *Config) {
			c.Debounce, c.Tests, c.MaxFileSize = 300*time.Millisecond, Tests{Mode: TestsOnSave, Timeout: 2 * time.Minute}, 1000
		}},
		{"settings over file, explicit keys only", root, `{"fixloop": {"tests": {"mode": "off"}, "debounce": null}}`, func(c *Config) {
			c.Debounce, c.Tests, c.MaxFileSize = 300*time.Millisecond, Tests{Mode: TestsOff, Timeout: 2 * time.Minute}, 1000
		}},
		{"settings over defaults", "", `{"maxFileSize": 5}`, func(c *Config) { c.MaxFileSize = 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Default()
			tt.want(&want)
			got, ps := Resolve(tt.root, []byte(tt.settings))
			if ps != nil {
				t.Fatalf("problems:\n%v", ps)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestResolveCollectsAllProblems(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, FileName)
	if err := os.WriteFile(path, []byte("debounce: 1s\ntests:\n  mode: never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ps := Resolve(root, []byte(`{"maxFileSize": 0, "debounce": 20}`))
	if len(ps) != 2 {
		t.Fatalf("want 2 problems, got:\n%v", ps)
	}
	if ps[0].Source != path || ps[0].Field != "tests.mode" || ps[1].Source != "settings" || ps[1].Field != "maxFileSize" {
		t.Errorf("problems:\n%v", ps)
	}
	if got.Debounce != 20*time.Millisecond || got.Tests.Mode != TestsOnOpenAndSave || got.MaxFileSize != DefaultMaxFileSize {
		t.Errorf("got %+v", got)
	}
}

func TestCheckValidator(t *testing.T) {
	known := map[string]bool{"all": true, "SA1000": true, "-ST1000": true}
	validate := func(checks []string) error {
		for _, c := range checks {
			if !known[c] {
				return errors.New("unknown check " + c + "; run `staticcheck -list-checks` for the names")
			}
		}
		return nil
	}
	root := t.TempDir()
	path := filepath.Join(root, FileName)
	content := "debounce: 1s\nstaticcheck:\n  checks:\n    - all\n    - SA9999\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("file", func(t *testing.T) {
		got, ps := ResolveWith(root, nil, validate)
		want := path + ":4:5: staticcheck.checks: unknown check SA9999; run `staticcheck -list-checks` for the names"
		if len(ps) != 1 || ps[0].String() != want {
			t.Fatalf("got %v, want %q", ps, want)
		}
		if got.Staticcheck.Checks != nil || got.Debounce != time.Second {
			t.Errorf("invalid checks applied or valid debounce lost: %+v", got)
		}
	})
	t.Run("settings fix it", func(t *testing.T) {
		got, ps := ResolveWith(root, []byte(`{"staticcheck": {"checks": ["SA1000"]}}`), validate)
		if len(ps) != 1 || ps[0].Source != path {
			t.Fatalf("want only the file's problem, got %v", ps)
		}
		if !reflect.DeepEqual(got.Staticcheck.Checks, []string{"SA1000"}) {
			t.Errorf("checks = %q", got.Staticcheck.Checks)
		}
	})
	t.Run("settings wrong", func(t *testing.T) {
		l := Loader{Validate: validate}
		_, ps := l.ApplySettings(Default(), []byte(`{"staticcheck": {"checks": ["XX1"]}}`), "settings")
		if len(ps) != 1 || ps[0].Field != "staticcheck.checks" || !strings.Contains(ps[0].Message, "unknown check XX1") {
			t.Errorf("got %v", ps)
		}
	})
	t.Run("no validator", func(t *testing.T) {
		got, ps := Resolve(root, nil)
		if ps != nil || !reflect.DeepEqual(got.Staticcheck.Checks, []string{"all", "SA9999"}) {
			t.Errorf("got %+v, %v", got, ps)
		}
	})
}

// TestToolProcesses: maxToolProcesses is the pool's size when set, one
// per CPU when absent or 0; the workspace file may set it.
func TestToolProcesses(t *testing.T) {
	if got, want := Default().ToolProcesses(), runtime.NumCPU(); got != want {
		t.Errorf("default ToolProcesses() = %d, want runtime.NumCPU() = %d", got, want)
	}
	cfg, ps := LoadFile(writeConfig(t, "maxToolProcesses: 6\n"), Default())
	if ps != nil || cfg.ToolProcesses() != 6 {
		t.Errorf("from .fixloop.yaml: ToolProcesses() = %d, problems %v; want 6", cfg.ToolProcesses(), ps)
	}
	cfg, ps = ApplySettings(cfg, []byte(`{"maxToolProcesses": 0}`), "settings")
	if ps != nil || cfg.ToolProcesses() != runtime.NumCPU() {
		t.Errorf("0 from the editor over 6: ToolProcesses() = %d, problems %v; want one per CPU", cfg.ToolProcesses(), ps)
	}
}
