package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// closedEndpoint returns the base URL of a port that nothing listens on.
func closedEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// TestFixModelUnreachable: a model endpoint that nothing listens on stops
// fix before the baseline check, with exit 2 and an error that names the
// endpoint and what to check; no banner, no baseline, no round.
func TestFixModelUnreachable(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := closedEndpoint(t)
	code, out, errOut := run(t, "fix", "--provider", "openai", "--model", "m", "--base-url", base,
		"--api-key-env", "FIXLOOP_PROBE_TEST_KEY", "--store", "off", "--sandbox=none", calcCopy(t))
	if code != ExitUsage {
		t.Errorf("exit %d, want %d\n%s%s", code, ExitUsage, out, errOut)
	}
	for _, want := range []string{"the model endpoint " + base + " cannot be reached", "--base-url", "model server is running"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
		t.Errorf("want one error line, got %d:\n%s", n+1, errOut)
	}
	for _, banner := range []string{"baseline:", "fixloop repair", "fixloop refactor", "round 1"} {
		if strings.Contains(out+errOut, banner) {
			t.Errorf("fix printed %q although the endpoint cannot be reached:\n%s%s", banner, out, errOut)
		}
	}
}

// TestFixModelWithoutModelsList: an endpoint that answers 404 to GET
// /models (some compatible servers have no model list) but answers
// completions is reachable: the probe, which carries the key as
// completions do, lets the session run.
func TestFixModelWithoutModelsList(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("FIXLOOP_PROBE_TEST_KEY", "probe-key")
	file := calcCopy(t)
	text, _ := os.ReadFile(file)
	fixed := strings.Replace(string(text), `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	model := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", fixed)})
	target, err := url.Parse(model.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	var probes atomic.Int32
	var probeAuth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			probes.Add(1)
			probeAuth.Store(r.Header.Get("Authorization"))
			http.NotFound(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()

	code, out, errOut := run(t, "fix", "--provider", "openai", "--model", "m", "--base-url", srv.URL+"/v1",
		"--api-key-env", "FIXLOOP_PROBE_TEST_KEY", "--store", "off", "--sandbox=none", file)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"baseline:", "round 1/3: accepted", `+	return "hello"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := probes.Load(); n != 1 {
		t.Errorf("GET /models asked %d times, want once", n)
	}
	if got, _ := probeAuth.Load().(string); got != "Bearer probe-key" {
		t.Errorf("the probe sent Authorization %q, want the key as completions send it", got)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d completion requests, want 1", n)
	}
}

// TestEvalModelUnreachable: eval probes the run's model endpoint before
// any session: nothing listening is exit 2 with an error naming it, and no
// session runs or is stored.
func TestEvalModelUnreachable(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := closedEndpoint(t)
	db := filepath.Join(t.TempDir(), "eval.db")
	code, out, errOut := run(t, "eval", "--provider", "openai", "--model", "m", "--base-url", base,
		"--api-key-env", "FIXLOOP_PROBE_TEST_KEY", "--store", db, "--run", "unreachable", "--sandbox=none",
		benchDataset(t, "py-sum-wrong", "go-calc"))
	if code != ExitUsage {
		t.Errorf("exit %d, want %d\n%s%s", code, ExitUsage, out, errOut)
	}
	if want := "the model endpoint " + base + " cannot be reached"; !strings.Contains(errOut, want) {
		t.Errorf("stderr does not say %q:\n%s", want, errOut)
	}
	for _, never := range []string{"sessions to run", "[1/2]", "baseline"} {
		if strings.Contains(errOut, never) {
			t.Errorf("eval says %q although the endpoint cannot be reached:\n%s", never, errOut)
		}
	}
	if stored := storedRuns(t, db, "unreachable"); len(stored) != 0 {
		t.Errorf("sessions stored: %v", stored)
	}
}
