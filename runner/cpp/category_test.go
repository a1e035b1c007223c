package cpp

import (
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestCategory(t *testing.T) {
	tests := []struct {
		code string
		want runner.Category
	}{
		{"compiler", runner.CategoryErrorProne},
		{"", runner.CategoryErrorProne},
		{"bugprone-integer-division", runner.CategoryErrorProne},
		{"bugprone-use-after-move", runner.CategoryErrorProne},
		{"clang-analyzer-core.NullDereference", runner.CategoryErrorProne},
		{"clang-diagnostic-unused-variable", runner.CategoryErrorProne},
		{"performance-unnecessary-value-param", runner.CategoryPerformance},
		{"performance-for-range-copy", runner.CategoryPerformance},
		{"modernize-use-nullptr", runner.CategoryRefactor},
		{"modernize-loop-convert", runner.CategoryRefactor},
		{"readability-braces-around-statements", runner.CategoryStyle},
		{"readability-else-after-return", runner.CategoryStyle},
		{"cppcoreguidelines-pro-type-member-init", runner.CategoryOther},
		{"google-runtime-int", runner.CategoryOther},
		{"misc-unused-parameters", runner.CategoryOther},
		{"bugprone", runner.CategoryOther}, // a group name without a check is not a check
	}
	for _, tt := range tests {
		if got := Category(tt.code); got != tt.want {
			t.Errorf("Category(%q) = %s, want %s", tt.code, got, tt.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct{ check, want string }{
		{"modernize-use-nullptr", "https://releases.llvm.org/14.0.0/tools/clang/tools/extra/docs/clang-tidy/checks/modernize-use-nullptr.html"},
		{"clang-analyzer-core.NullDereference", "https://releases.llvm.org/14.0.0/tools/clang/tools/extra/docs/clang-tidy/checks/clang-analyzer-core.NullDereference.html"},
		{"clang-diagnostic-unused-variable", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := CheckURL(tt.check); got != tt.want {
			t.Errorf("CheckURL(%q) = %q, want %q", tt.check, got, tt.want)
		}
	}
}

func TestTools(t *testing.T) {
	tools := Tools()
	if len(tools) != 4 || tools[0].Name != "g++" || tools[1].Name != "clang-tidy" || tools[2].Name != "clangd" || tools[3].Name != "clangd-22" {
		t.Fatalf("Tools() = %+v", tools)
	}
	for i, tl := range tools {
		if tl.Language != "cpp" || tl.Install != "apt install "+tl.Name || tl.Package != "Debian package "+tl.Name {
			t.Errorf("tool %+v", tl)
		}
		if optional := i >= 2; optional != (tl.Optional != "") {
			t.Errorf("tool %s: Optional %q", tl.Name, tl.Optional)
		}
	}
}

func TestClangdCommand(t *testing.T) {
	tests := []struct{ tidy, want string }{
		{"", "clangd"},
		{"clang-tidy", "clangd"},
		{"clang-tidy-22", "clangd-22"},
		{"/opt/llvm/bin/clang-tidy", "/opt/llvm/bin/clangd"},
		{"/opt/llvm/bin/clang-tidy-18", "/opt/llvm/bin/clangd-18"},
		{"my-tidy", "clangd"},
	}
	for _, tt := range tests {
		if got := ClangdCommand(tt.tidy).Commands[0]; got != tt.want {
			t.Errorf("ClangdCommand(%q) = %q, want %q", tt.tidy, got, tt.want)
		}
	}
}
