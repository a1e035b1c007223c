package server_test

import (
	"os"
	"testing"

	"github.com/fixloop/fixloop/runner/golang/golist"
)

// TestMain lets the test binary load a candidate's Go packages in the
// sandbox, as fixloop's main does: the confined load runs this binary.
func TestMain(m *testing.M) {
	golist.Serve()
	os.Exit(m.Run())
}
