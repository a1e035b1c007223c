package golang

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/runner/golang/shortcut"
	"github.com/fixloop/fixloop/runner/proc"
)

var goVersion = sync.OnceValue(func() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := proc.Command(ctx, "", "go", "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
})

// ToolVersions names the versions of the tools that check Go code: the go
// command that builds and tests, and the analyzer modules compiled into
// fixloop. Session records keep them so that results can be compared
// across tool versions.
func ToolVersions() map[string]string {
	v := map[string]string{"go": goVersion()}
	built := shortcut.BuildModules()
	for path, name := range map[string]string{"honnef.co/go/tools": "staticcheck", "golang.org/x/tools": "go/analysis"} {
		if version, ok := built[path]; ok {
			v[name] = version
		}
	}
	return v
}
