package toolset

import (
	"testing"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor"
)

// TestSessionDefaults: the settings' defaults are refactor's, so that a
// session started from the editor, fixloop fix or the MCP server runs as
// one with zero Options.
func TestSessionDefaults(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	if got, want := Minimize(cfg), (refactor.Minimize{MaxChecks: refactor.DefaultMinimizeChecks, Budget: refactor.DefaultMinimizeBudget, Share: refactor.DefaultMinimizeShare}); got != want {
		t.Errorf("Minimize(defaults) = %+v, want %+v", got, want)
	}
	if got, want := Stuck(cfg), (refactor.Stuck{Repeats: refactor.DefaultStuckRepeats, SameFeedback: refactor.DefaultStuckSameFeedback}); got != want {
		t.Errorf("Stuck(defaults) = %+v, want %+v", got, want)
	}
}

// TestSessionSettings: minimize.enabled false turns the search off, and a
// stuck count of 0 turns its rule off (negative for refactor).
func TestSessionSettings(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Minimize = config.Minimize{Enabled: false, MaxChecks: 30, Budget: 10 * time.Second} // share 0: no bound
	cfg.Stuck = config.Stuck{Repeats: 0, SameFeedback: 5}
	if got, want := Minimize(cfg), (refactor.Minimize{Off: true, MaxChecks: 30, Budget: 10 * time.Second, Share: -1}); got != want {
		t.Errorf("Minimize = %+v, want %+v", got, want)
	}
	if got, want := Stuck(cfg), (refactor.Stuck{Repeats: -1, SameFeedback: 5}); got != want {
		t.Errorf("Stuck = %+v, want %+v", got, want)
	}
}

func TestSessionTools(t *testing.T) {
	versions := map[string]string{"fixloop": "v1"}
	cold := config.Config{Python: config.Python{Tools: config.PythonCold}, Java: config.Java{Tools: config.JavaCold}, Cpp: config.Cpp{Tools: config.CppCold}}
	for _, c := range []struct {
		name string
		cfg  config.Config
		file string
		key  string // the design's key, "" for none
		want string
	}{
		{"python, default", config.Config{}, "/p/a.py", "python.tools", "warm"},
		{"python, cold", cold, "/p/a.py", "python.tools", "cold"},
		{"java, default", config.Config{}, "/p/A.java", "java.tools", "warm"},
		{"java, cold", cold, "/p/A.java", "java.tools", "cold"},
		{"c++, default", config.Config{}, "/p/a.cc", "cpp.tools", "warm"},
		{"c++, cold", cold, "/p/a.h", "cpp.tools", "cold"},
		{"go", cold, "/p/a.go", "", ""},
	} {
		got := SessionTools(versions, c.cfg, c.file)
		if got["fixloop"] != "v1" {
			t.Errorf("%s: %v lacks the versions", c.name, got)
		}
		for _, key := range []string{"python.tools", "java.tools", "cpp.tools"} {
			want := ""
			if key == c.key {
				want = c.want
			}
			if got[key] != want {
				t.Errorf("%s: %v, want %s %q", c.name, got, key, want)
			}
		}
	}
	if _, ok := versions["python.tools"]; ok {
		t.Errorf("the versions given were changed: %v", versions)
	}
}
