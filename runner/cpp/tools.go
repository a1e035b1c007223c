package cpp

import "github.com/fixloop/fixloop/runner/tool"

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
func ClangTidy() tool.Tool {
	return tool.Tool{
		Name:     "clang-tidy",
		Language: "cpp",
		Commands: []string{"clang-tidy"},
		Package:  "Debian package clang-tidy",
		Install:  "apt install clang-tidy",
	}
}

// Tools lists the external programs the C++ linter needs.
func Tools() []tool.Tool { return []tool.Tool{GXX(), ClangTidy()} }

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
