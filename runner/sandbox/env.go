package sandbox

import (
	"strings"
)

// allowedVars are the variables of fixloop's environment a confined command
// gets, by name; allowedPrefixes by the start of the name. Everything else
// is dropped, whatever its name: an API key in LLM_KEY never reaches a
// candidate.
var allowedVars = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TZ": true,
	// Go
	"GOROOT": true, "GOPATH": true, "GOMODCACHE": true, "GOCACHE": true, "GOFLAGS": true,
	"GOOS": true, "GOARCH": true, "GOAMD64": true, "GOARM": true, "GOARM64": true, "GO386": true,
	"GOEXPERIMENT": true, "GODEBUG": true, "GOTOOLCHAIN": true, "GOWORK": true, "GOMAXPROCS": true,
	"GOPRIVATE": true, "GONOPROXY": true, "GONOSUMDB": true, "GOINSECURE": true,
	"CC": true, "CXX": true, "CFLAGS": true, "CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true,
	"PKG_CONFIG_PATH": true, "LD_LIBRARY_PATH": true, "LIBRARY_PATH": true, "CPATH": true,
	"C_INCLUDE_PATH": true, "CPLUS_INCLUDE_PATH": true, "CCACHE_DISABLE": true,
	// Java
	"JAVA_HOME": true, "CLASSPATH": true, "MAVEN_REPO_LOCAL": true,
	// Python
	"PYTHONPATH": true, "PYTHONHOME": true, "VIRTUAL_ENV": true, "PYENV_ROOT": true,
	"PYENV_VERSION": true, "CONDA_PREFIX": true, "PYTHONHASHSEED": true, "PYTHONUTF8": true,
	"PYTHONIOENCODING": true,
	// Rust and Node, for command linters
	"CARGO_HOME": true, "RUSTUP_HOME": true, "RUSTUP_TOOLCHAIN": true, "NODE_PATH": true,
}

var allowedPrefixes = []string{"LC_", "CGO_"}

// allowedName reports whether a variable of fixloop's environment may reach
// a confined command.
func allowedName(name string) bool {
	if secretName(name) {
		return false
	}
	if allowedVars[name] {
		return true
	}
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// AllowedEnv keeps of env the variables a confined command may get: PATH,
// the locale, TZ and the toolchains' own variables (Go, C and C++, Java,
// Python), never one whose name says it holds a secret. HOME and TMPDIR
// are the sandbox's to set.
func AllowedEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if ok && allowedName(name) {
			out = append(out, kv)
		}
	}
	return out
}

// CleanEnv drops from fixloop's environment what a program must not see:
// API keys, tokens, passwords and other secrets (the model's API key above
// all), by the variable's name. It is for the programs fixloop runs
// outside the sandbox on the user's own files (linters); what runs a
// candidate gets AllowedEnv.
func CleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if secretName(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretName reports whether an environment variable's name says it holds
// a secret.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "AUTH"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
