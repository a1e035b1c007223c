// Package sandboxtest holds what the tests of confined runs share.
package sandboxtest

import (
	"os"
	"testing"

	"github.com/fixloop/fixloop/runner/sandbox"
)

// NeedConfinement skips the test where the sandbox cannot confine
// commands (no bubblewrap, no user namespaces), except in CI (CI=true),
// which installs bubblewrap: there the test fails.
func NeedConfinement(t testing.TB) {
	t.Helper()
	if c := sandbox.Probe(); !c.Confined {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must confine commands: %s", c)
		}
		t.Skipf("commands cannot be confined here: %s", c)
	}
}
