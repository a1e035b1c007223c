package python

import (
	"os"
	"testing"
)

// testPool is the warm pool of the package's tests, as a toolset's is for
// the linters it builds: the tests' workers are shared, at most
// warmMaxWorkers, and TestMain stops them at the end.
var testPool = NewWarmPool()

func TestMain(m *testing.M) {
	code := m.Run()
	testPool.Close()
	os.Exit(code)
}
