package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestResolvePathsAgainstRoot: file paths in the settings mean the same
// wherever fixloop runs: they are made absolute against the workspace root.
func TestResolvePathsAgainstRoot(t *testing.T) {
	root := t.TempDir()
	yaml := "java:\n  checkstyle: config/cs.xml\n  classpath: [lib/a.jar, /opt/b.jar]\n"
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, problems := Resolve(root, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if want := filepath.Join(root, "config", "cs.xml"); cfg.Java.Checkstyle != want {
		t.Errorf("checkstyle = %q, want %q", cfg.Java.Checkstyle, want)
	}
	if want := []string{filepath.Join(root, "lib", "a.jar"), "/opt/b.jar"}; !slices.Equal(cfg.Java.Classpath, want) {
		t.Errorf("classpath = %q, want %q", cfg.Java.Classpath, want)
	}
	cfg, _ = Resolve(root, []byte(`{"java": {"checkstyle": "google"}}`))
	if cfg.Java.Checkstyle != CheckstyleGoogle {
		t.Errorf("checkstyle = %q, want google unchanged", cfg.Java.Checkstyle)
	}
}

// TestResolvePMDRulesets: java.pmd's ruleset files are made absolute
// against the workspace root; PMD's built-in rulesets are kept as they are.
func TestResolvePMDRulesets(t *testing.T) {
	root := t.TempDir()
	tests := []struct{ name, yaml, settings, want string }{
		{"default families", "java:\n  pmd: true\n", "", PMDDefault},
		{"off", "java:\n  pmd: false\n", "", ""},
		{"absent", "", "", ""},
		{"files and built-ins", "java:\n  pmd: 'config/pmd.xml, category/java/security.xml, /etc/pmd.xml'\n", "",
			filepath.Join(root, "config", "pmd.xml") + ",category/java/security.xml,/etc/pmd.xml"},
		{"settings win", "java:\n  pmd: true\n", `{"java": {"pmd": ["rulesets/java/quickstart.xml"]}}`, "rulesets/java/quickstart.xml"},
		{"settings turn it off", "java:\n  pmd: true\n", `{"java": {"pmd": false}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(root, FileName), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			var settings []byte
			if tt.settings != "" {
				settings = []byte(tt.settings)
			}
			cfg, problems := Resolve(root, settings)
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			if cfg.Java.PMD != tt.want {
				t.Errorf("pmd = %q, want %q", cfg.Java.PMD, tt.want)
			}
		})
	}
}

// TestPythonLintersEmptyMeansNone: python.linters: [] (in .fixloop.yaml, or
// sent by VS Code's fixloop.python.linters in initializationOptions) is an
// empty, non-nil list, meaning no linters; absent or null keeps what the
// layer below says, and nil everywhere means the defaults.
func TestPythonLintersEmptyMeansNone(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string // .fixloop.yaml; "" for none
		settings string // initializationOptions
		want     []string
	}{
		{"nothing set: defaults (nil)", "", "", nil},
		{"yaml empty list", "python:\n  linters: []\n", "", []string{}},
		{"yaml empty list, settings say nothing", "python:\n  linters: []\n", `{"fixloop": {"tests": {"mode": "save"}}}`, []string{}},
		{"yaml empty list, settings null", "python:\n  linters: []\n", `{"python": {"linters": null}}`, []string{}},
		{"settings empty list", "", `{"python": {"linters": []}}`, []string{}},
		{"settings empty list, wrapped", "", `{"fixloop": {"python": {"linters": []}}}`, []string{}},
		{"settings empty list over yaml", "python:\n  linters: [pyright]\n", `{"python": {"linters": []}}`, []string{}},
		{"settings list over yaml empty", "python:\n  linters: []\n", `{"python": {"linters": ["flake8"]}}`, []string{"flake8"}},
		{"python map without linters", "python: {}\n", `{"python": {}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.yaml != "" {
				if err := os.WriteFile(filepath.Join(root, FileName), []byte(tt.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var settings []byte
			if tt.settings != "" {
				settings = []byte(tt.settings)
			}
			cfg, problems := Resolve(root, settings)
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			got := cfg.Python.Linters
			if (got == nil) != (tt.want == nil) || !slices.Equal(got, tt.want) {
				t.Errorf("Python.Linters = %#v, want %#v", got, tt.want)
			}
			// A copy of the configuration keeps the difference.
			if c := cfg.clone(); (c.Python.Linters == nil) != (tt.want == nil) {
				t.Errorf("clone: Python.Linters = %#v, want %#v", c.Python.Linters, tt.want)
			}
		})
	}
}
