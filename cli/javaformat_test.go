package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/model/rules"
)

// TestCheckToolsGoogleJavaFormat: check --tools lists the rules provider's
// Java fixer, google-java-format, with its version where it is installed
// (CI installs it and sets FIXLOOP_GOOGLE_JAVA_FORMAT), or with how to
// install it.
func TestCheckToolsGoogleJavaFormat(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, "check", "--tools", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got toolsOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	var e *toolEntry
	for i := range got.Tools {
		if got.Tools[i].Name == "google-java-format" {
			e = &got.Tools[i]
		}
	}
	if e == nil {
		t.Fatalf("google-java-format is not listed: %+v", got.Tools)
	}
	if e.Language != "java" || !strings.Contains(e.Install, "google-java-format@2.0.2") || !strings.Contains(e.Install, rules.GoogleJavaFormatEnv) {
		t.Errorf("entry %+v", *e)
	}
	_, findErr := rules.FindGoogleJavaFormat()
	switch {
	case findErr == nil:
		if !e.Found || e.Path == "" || e.Version != "google-java-format 1.26.0" {
			t.Errorf("google-java-format is installed but listed as %+v", *e)
		}
	case os.Getenv("CI") == "true":
		t.Errorf("CI must install google-java-format: %v", findErr)
	default:
		if e.Found || e.Message == "" {
			t.Errorf("google-java-format is missing but listed as %+v", *e)
		}
	}
	// The text listing too.
	code, out, _ = run(t, "check", "--tools")
	if code != ExitOK || !strings.Contains(out, "google-java-format") {
		t.Errorf("exit %d, listing without google-java-format:\n%s", code, out)
	}
}
