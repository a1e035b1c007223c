package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFindAndMissing(t *testing.T) {
	sh := Tool{Name: "sh", Commands: []string{"fixloop-no-such-tool", "sh"}}
	if p, err := sh.Find(); err != nil || !strings.HasSuffix(p, "/sh") {
		t.Fatalf("Find(sh) = %q, %v", p, err)
	}
	missing := Tool{Name: "pylint", Commands: []string{"fixloop-no-such-pylint"}, Package: "Debian package pylint", Install: "apt install pylint"}
	_, err := missing.Find()
	if !IsMissing(err) || !IsMissing(fmt.Errorf("wrapped: %w", err)) {
		t.Fatalf("Find(missing) err = %v, want a MissingError", err)
	}
	for _, want := range []string{"pylint is not installed", "on PATH", "Debian package pylint", "apt install pylint"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	jar := &MissingError{Tool: Tool{Name: "junit5", Commands: []string{"/usr/share/java/x.jar"}}}
	if strings.Contains(jar.Error(), "PATH") {
		t.Errorf("a file path is not looked up on PATH: %q", jar)
	}
	if IsMissing(errors.New("other")) {
		t.Error("IsMissing(other) = true")
	}
}

func TestDiscover(t *testing.T) {
	st := Discover(context.Background(), []Tool{
		{Name: "sh", Commands: []string{"sh"}, VersionArgs: []string{"-c", "echo sh 1.0"}},
		{Name: "nope", Commands: []string{"fixloop-no-such-tool"}},
	})
	if len(st) != 2 || st[0].Err != nil || st[0].Version != "sh 1.0" || st[1].Err == nil || st[1].Path != "" {
		t.Errorf("Discover = %+v", st)
	}
	n := Note("/p/a.py", st[1].Err)
	if n.Source != "fixloop" || n.Line != 1 || !strings.Contains(n.Message, "nope is not installed") {
		t.Errorf("Note = %+v", n)
	}
}
