package cpp

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/runner/tool"
)

// GXX is the g++ compiler, which finds compile errors.
func GXX() tool.Tool {
	return tool.Tool{
		Name:     "g++",
		Language: "cpp",
		Commands: []string{"g++"},
		Package:  "Debian package g++",
		Install:  "apt install g++",
	}
}

// ClangTidy is the clang-tidy linter.
func ClangTidy() tool.Tool { return ClangTidyCommand("") }

// ClangTidyCommand is clang-tidy run as command: a version's own binary
// such as "clang-tidy-22" (Debian installs each version under its number),
// for results that do not move with the machine's default clang-tidy, or a
// path. "" means "clang-tidy".
func ClangTidyCommand(command string) tool.Tool {
	command = cmp.Or(command, "clang-tidy")
	pkg := "clang-tidy"
	if base := filepath.Base(command); strings.HasPrefix(base, "clang-tidy-") {
		pkg = base
	}
	return tool.Tool{
		Name:     "clang-tidy",
		Language: "cpp",
		Commands: []string{command},
		Package:  "Debian package " + pkg,
		Install:  "apt install " + pkg,
	}
}

// Tools lists the external programs the C++ linter needs, and clangd and
// clangd-22 (the clangd of the default clang-tidy and of LintEval's
// pinned clang-tidy-22), which the warm design (cpp.tools) uses where
// installed.
func Tools() []tool.Tool {
	return []tool.Tool{GXX(), ClangTidy(), ClangdCommand(""), ClangdCommand("clang-tidy-22")}
}

// commandTool describes the program a test command starts, so that a
// missing one is reported with how to install it. Well-known build tools
// name their Debian package.
func commandTool(name string) tool.Tool {
	t := tool.Tool{Name: name, Language: "cpp", Commands: []string{name}}
	pkgs := map[string]string{
		"make": "make", "cmake": "cmake", "ctest": "cmake", "ninja": "ninja-build",
		"g++": "g++", "clang++": "clang", "meson": "meson", "bazel": "bazel-bootstrap",
	}
	if pkg, ok := pkgs[name]; ok {
		t.Package = "Debian package " + pkg
		t.Install = "apt install " + pkg
	}
	return t
}
