package config

import (
	"path/filepath"
	"strings"
)

// CheckValidator checks a list of staticcheck check selectors, for example
// against the analyzers that are actually linked in. Its error text is shown
// to the user as a [Problem] at the checks key.
type CheckValidator func(checks []string) error

// Loader loads settings with optional extra validation. The zero Loader is
// what the package-level functions use.
type Loader struct {
	// Validate, when set, is called with every syntactically valid
	// staticcheck.checks list; if it fails, the list is not applied.
	Validate CheckValidator
}

// Resolve returns the settings for the workspace at root: the defaults, then
// root/.fixloop.yaml, then the editor settings (JSON, as for [ApplySettings],
// reported with source "settings"). It returns all problems found on the
// way; the config is usable either way. An empty root skips the file.
func Resolve(root string, editorSettings []byte) (Config, Problems) {
	return Loader{}.Resolve(root, editorSettings)
}

// ResolveWith is [Resolve] with a validator for staticcheck check names.
func ResolveWith(root string, editorSettings []byte, validate CheckValidator) (Config, Problems) {
	return Loader{Validate: validate}.Resolve(root, editorSettings)
}

// Resolve is [Resolve] with l's check validator.
func (l Loader) Resolve(root string, editorSettings []byte) (Config, Problems) {
	cfg := Default()
	var all Problems
	if root != "" {
		var ps Problems
		cfg, ps = l.LoadFile(filepath.Join(root, FileName), cfg)
		all = append(all, ps...)
	}
	cfg, ps := l.ApplySettings(cfg, editorSettings, "settings")
	all = append(all, ps...)
	if root != "" {
		cfg.resolvePaths(root)
	}
	if len(all) == 0 {
		return cfg, nil
	}
	return cfg, all
}

// resolvePaths makes the file paths of the settings (the checkstyle config,
// the Java class path, PMD's ruleset files) absolute against the workspace root, so that they
// mean the same whatever directory fixloop runs in.
func (c *Config) resolvePaths(root string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	if c.Java.Checkstyle != CheckstyleSun && c.Java.Checkstyle != CheckstyleGoogle {
		c.Java.Checkstyle = abs(c.Java.Checkstyle)
	}
	for i, p := range c.Java.Classpath {
		c.Java.Classpath[i] = abs(p)
	}
	if c.Java.PMD != "" {
		sets := strings.Split(c.Java.PMD, ",")
		for i, s := range sets {
			if !IsPMDBuiltin(s) {
				sets[i] = abs(s)
			}
		}
		c.Java.PMD = strings.Join(sets, ",")
	}
}
