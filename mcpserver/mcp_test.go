package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/mcpserver"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
	"github.com/fixloop/fixloop/toolset"
)

// callTimeout bounds one tool call: generous, as a check runs go test in
// the sandbox on a machine other tests share.
const callTimeout = 5 * time.Minute

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// fixloopBinary builds the fixloop command once for the package's tests.
func fixloopBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fixloop-mcp-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "fixloop")
		buildOut, buildErr = exec.Command("go", "build", "-o", binPath, "..").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building fixloop: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// connect starts `fixloop mcp` with args as a subprocess and connects the
// SDK's client to it as client name.
// Unless args name a --store, it stores nothing.
func connect(t *testing.T, name string, args ...string) *mcp.ClientSession {
	t.Helper()
	cs, _ := start(t, mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil), nil, args...)
	return cs
}

// start starts `fixloop mcp` with args, and env added to the process's
// environment, and connects client to it until the test ends. Unless args
// name a --store, it stores nothing.
func start(t testing.TB, client *mcp.Client, env []string, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	bin := fixloopBinary(t)
	if !slices.Contains(args, "--store") {
		args = append([]string{"--store", "off"}, args...)
	}
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+t.TempDir()), env...)
	cmd.Stderr = &logWriter{t: t}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to fixloop mcp: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, cmd
}

// progressClient is a client named name that hands on the message of each
// progress notification it gets.
func progressClient(name string, progress func(msg string)) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress(req.Params.Message)
		},
	})
}

// cancelMidCall calls tool with args and a progress token, cancels the
// call when started yields (the client's progress handler says the work
// began), and checks that the call then returns an error.
func cancelMidCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, started <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: tool, Arguments: args}
		params.SetProgressToken(tool)
		_, err := cs.CallTool(ctx, params)
		errc <- err
	}()
	select {
	case <-started:
	case err := <-errc:
		t.Fatalf("%s ended before the work to cancel began: %v", tool, err)
	case <-time.After(callTimeout):
		t.Fatalf("%s: no progress notification", tool)
	}
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Errorf("the cancelled %s returned no error", tool)
		}
	case <-time.After(callTimeout):
		t.Fatalf("the cancelled %s did not return", tool)
	}
}

// logWriter passes the server's stderr to the test log.
type logWriter struct {
	mu sync.Mutex
	t  testing.TB
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			w.t.Log("fixloop:", l)
		}
	}
	return len(p), nil
}

// call calls a tool and decodes its structured output into out.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError && out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", tool, b, err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// example copies the bundled Go example (alerts, and a failing test:
// TestPerimeter) into a temporary root.
func example(t testing.TB) (root, original string) {
	t.Helper()
	root = testtree.Copy(t, filepath.Join("..", "testdata", "goexample"))
	b, err := os.ReadFile(filepath.Join(root, "shapes.go"))
	if err != nil {
		t.Fatal(err)
	}
	return root, string(b)
}

func replace(t testing.TB, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the example has no %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

func TestListTools(t *testing.T) {
	t.Parallel()
	root, _ := example(t)
	cs := connect(t, "list-client", "--root", root)
	if info := cs.InitializeResult().ServerInfo; info.Name != "fixloop" || info.Version == "" {
		t.Errorf("server info %+v", info)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		readOnly := tool.Name != mcpserver.ToolRepair && tool.Name != mcpserver.ToolRefactor
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint != readOnly {
			t.Errorf("%s: annotations %+v, want readOnlyHint %v", tool.Name, tool.Annotations, readOnly)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{mcpserver.ToolCheckCandidate, mcpserver.ToolDiagnostics, mcpserver.ToolRefactor, mcpserver.ToolRepair, mcpserver.ToolReport}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	for _, tool := range res.Tools {
		if tool.Name != mcpserver.ToolCheckCandidate {
			continue
		}
		schema, _ := json.Marshal(tool.OutputSchema)
		for _, field := range []string{"builds", "keeps_tests", "broken_tests", "fixed", "new", "lines_edited", "verdict", "feedback"} {
			if !strings.Contains(string(schema), `"`+field+`"`) {
				t.Errorf("the output schema of %s has no %s: %s", tool.Name, field, schema)
			}
		}
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	cs := connect(t, "diag-client", "--root", root)

	var got toolset.FileCheck
	res := call(t, cs, mcpserver.ToolDiagnostics, map[string]any{"path": "shapes.go"}, &got)
	if res.IsError {
		t.Fatalf("error: %s", text(res))
	}
	printf, withFix := false, false
	for _, d := range got.Diagnostics {
		if d.Source == "vet" && strings.HasPrefix(d.Code, "printf") && d.Line == 57 && d.Category == "Error-prone" {
			printf = true
		}
		if len(d.Fixes) > 0 && len(d.Fixes[0].Edits) > 0 {
			withFix = true
		}
	}
	if !printf || !withFix {
		t.Errorf("want the vet printf alert at line 57 and a suggested fix: %+v", got.Diagnostics)
	}
	if !got.Tests.Ran || got.Tests.Total != 3 || got.Tests.Failed != 1 || len(got.Tests.Failures) != 1 || got.Tests.Failures[0].Test != "TestPerimeter" {
		t.Errorf("tests %+v, want 3 with TestPerimeter failing", got.Tests)
	}
	if s := text(res); !strings.Contains(s, "shapes.go:57") || !strings.Contains(s, "FAIL TestPerimeter") {
		t.Errorf("summary %q", s)
	}

	// content is an overlay: checked, never written.
	fixed := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
	var over toolset.FileCheck
	res = call(t, cs, mcpserver.ToolDiagnostics, map[string]any{"path": filepath.Join(root, "shapes.go"), "content": fixed}, &over)
	if res.IsError {
		t.Fatalf("error: %s", text(res))
	}
	if !over.Tests.Ran || over.Tests.Failed != 0 || over.Tests.Passed != 3 {
		t.Errorf("tests of the overlay %+v, want 3 passing", over.Tests)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "shapes.go")); string(b) != original {
		t.Error("the overlay was written to disk")
	}
}

// candidate is check_candidate's result as a client reads it.
type candidate struct {
	Builds      bool     `json:"builds"`
	KeepsTests  bool     `json:"keeps_tests"`
	BrokenTests []string `json:"broken_tests"`
	Fixed       int      `json:"fixed"`
	New         int      `json:"new"`
	LinesEdited int      `json:"lines_edited"`
	Verdict     string   `json:"verdict"`
	Feedback    string   `json:"feedback"`
}

func TestCheckCandidate(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	cs := connect(t, "candidate-client", "--root", root)
	path := filepath.Join(root, "shapes.go")

	check := func(t *testing.T, content string) candidate {
		t.Helper()
		var got candidate
		res := call(t, cs, mcpserver.ToolCheckCandidate, map[string]any{"path": "shapes.go", "content": content}, &got)
		if res.IsError {
			t.Fatalf("error: %s", text(res))
		}
		if !strings.Contains(text(res), "verdict "+got.Verdict) {
			t.Errorf("summary %q does not give the verdict %s", text(res), got.Verdict)
		}
		if b, _ := os.ReadFile(path); string(b) != original {
			t.Fatal("the candidate was written to disk")
		}
		return got
	}

	t.Run("fixes and keeps the tests", func(t *testing.T) {
		c := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
		c = replace(t, c, "if ok == true {", "if ok {")
		got := check(t, c)
		if !got.Builds || !got.KeepsTests || len(got.BrokenTests) != 0 || got.Fixed < 1 || got.New != 0 || got.LinesEdited != 4 || got.Verdict != "accepted" || got.Feedback != "" {
			t.Errorf("got %+v, want accepted: builds, keeps the tests, fixes the alert, 4 lines edited (2 removed, 2 added)", got)
		}
	})
	t.Run("breaks a test", func(t *testing.T) {
		c := replace(t, original, "return r.W * r.H", "return r.W + r.H")
		got := check(t, c)
		if !got.Builds || got.KeepsTests || !slices.ContainsFunc(got.BrokenTests, func(s string) bool { return strings.HasSuffix(s, "TestArea") }) || got.Verdict != "wrong_answer" {
			t.Errorf("got %+v, want TestArea broken, verdict wrong_answer", got)
		}
		if !strings.Contains(got.Feedback, "TestArea") {
			t.Errorf("feedback %q does not name TestArea", got.Feedback)
		}
	})
	t.Run("does not compile", func(t *testing.T) {
		c := replace(t, original, "return r.W * r.H", "return r.W * ")
		got := check(t, c)
		if got.Builds || got.Verdict != "compile_error" || got.Fixed != 0 || got.New != 0 || got.Feedback == "" {
			t.Errorf("got %+v, want compile_error with feedback", got)
		}
	})
}

func TestToolErrors(t *testing.T) {
	t.Parallel()
	root, _ := example(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.go")
	if err := os.WriteFile(secret, []byte("package secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, "error-client", "--root", root)
	for _, tc := range []struct {
		name, tool, path, want string
	}{
		{"outside", mcpserver.ToolDiagnostics, secret, "outside the roots"},
		{"dot-dot", mcpserver.ToolCheckCandidate, "../" + filepath.Base(outside) + "/secret.go", "outside the roots"},
		{"symlink out", mcpserver.ToolCheckCandidate, "link.go", "outside the roots"},
		{"missing", mcpserver.ToolDiagnostics, "nope.go", "does not exist"},
		{"unsupported", mcpserver.ToolCheckCandidate, "notes.txt", "no linter for .txt files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, map[string]any{"path": tc.path, "content": "package x\n"}, nil)
			if !res.IsError || !strings.Contains(text(res), tc.want) {
				t.Errorf("result %v %q, want a tool error saying %q", res.IsError, text(res), tc.want)
			}
		})
	}
	// The server goes on.
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("after the errors: %v", err)
	}
}

// TestRecordAndReport: each check_candidate call is a session of the
// "agent" provider, named by the client; fixloop_report and fixloop report
// show it as agent: CLIENT.
func TestRecordAndReport(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	db := filepath.Join(t.TempDir(), "sessions.db")
	cs := connect(t, "record-client", "--root", root, "--store", db)

	c := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
	var got struct {
		candidate
		Session string `json:"session"`
	}
	res := call(t, cs, mcpserver.ToolCheckCandidate, map[string]any{"path": "shapes.go", "content": c}, &got)
	if res.IsError || got.Session == "" || got.Verdict != "accepted" {
		t.Fatalf("check_candidate: %s %+v", text(res), got)
	}

	var rep mcpserver.ReportOutput
	res = call(t, cs, mcpserver.ToolReport, map[string]any{"group_by": "model"}, &rep)
	if res.IsError {
		t.Fatalf("report: %s", text(res))
	}
	g, ok := rep.Groups["agent: record-client"]
	if rep.Sessions != 1 || !ok || g["sessions"] != float64(1) {
		t.Errorf("report: %d sessions, groups %v, want 1 under agent: record-client", rep.Sessions, rep.Groups)
	}
	if !strings.Contains(text(res), "agent: record-client") {
		t.Errorf("the report's table does not show agent: record-client:\n%s", text(res))
	}
	res = call(t, cs, mcpserver.ToolReport, map[string]any{"group_by": "colour"}, nil)
	if !res.IsError || !strings.Contains(text(res), "use one of") {
		t.Errorf("group_by colour: %v %q, want a tool error", res.IsError, text(res))
	}

	// fixloop report reads the same session.
	scores := storedScores(t, cs, db)
	if _, ok := scores.By["model"]["agent: record-client"]; scores.Sessions != 1 || !ok {
		t.Errorf("fixloop report: %d sessions, by model %v", scores.Sessions, keys(scores.By["model"]))
	}
	if _, ok := scores.By["provider"]["agent"]; !ok {
		t.Errorf("fixloop report: by provider %v, want agent", keys(scores.By["provider"]))
	}
}

// reportScores is what `fixloop report --format json` says of a store.
type reportScores struct {
	Sessions int                                   `json:"sessions"`
	By       map[string]map[string]json.RawMessage `json:"by"`
}

// storedScores closes cs, so that the server records its sessions, and
// returns what `fixloop report --format json` says of the store db.
func storedScores(t *testing.T, cs *mcp.ClientSession, db string) reportScores {
	t.Helper()
	if err := cs.Close(); err != nil {
		t.Logf("closing: %v", err)
	}
	out, err := exec.Command(fixloopBinary(t), "report", "--store", db, "--format", "json").Output()
	if err != nil {
		t.Fatalf("fixloop report: %v", err)
	}
	var scores reportScores
	if err := json.Unmarshal(out, &scores); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	return scores
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestConcurrentAndLarge: two calls at once both answer; a 20 MB
// candidate is a tool error, and the server goes on.
func TestConcurrentAndLarge(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	cs := connect(t, "busy-client", "--root", root)

	fix := replace(t, original, "if ok == true {", "if ok {")
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 2)
	var diag toolset.FileCheck
	var cand candidate
	wg.Add(2)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		results[0], _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolDiagnostics, Arguments: map[string]any{"path": "shapes.go"}})
	}()
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		results[1], _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolCheckCandidate, Arguments: map[string]any{"path": "shapes.go", "content": fix}})
	}()
	wg.Wait()
	for i, out := range []any{&diag, &cand} {
		res := results[i]
		if res == nil || res.IsError {
			t.Fatalf("call %d: %+v", i, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	if len(diag.Diagnostics) == 0 || !cand.Builds || cand.Fixed < 1 {
		t.Errorf("concurrent calls: diagnostics %d, candidate %+v", len(diag.Diagnostics), cand)
	}

	big := original + "\n// " + strings.Repeat("x", 20<<20) + "\n"
	res := call(t, cs, mcpserver.ToolCheckCandidate, map[string]any{"path": "shapes.go", "content": big}, nil)
	if !res.IsError || !strings.Contains(text(res), "propose a smaller file") {
		t.Errorf("20 MB candidate: %v %.200q, want a tool error", res.IsError, text(res))
	}
	res = call(t, cs, mcpserver.ToolDiagnostics, map[string]any{"path": "shapes.go", "content": big}, nil)
	if !res.IsError || !strings.Contains(text(res), "give a smaller file") {
		t.Errorf("20 MB content: %v %.200q, want a tool error", res.IsError, text(res))
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("after the 20 MB candidate: %v", err)
	}
}

// session is check_candidate's session and round.
type session struct {
	candidate
	Session string `json:"session"`
	Round   int    `json:"round"`
}

// TestRoundsOfOneSession: checks of one file in one connection are the
// rounds of one session until the file on disk changes; each session is
// saved when it ends (here: the file changed, the client left).
func TestRoundsOfOneSession(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	db := filepath.Join(t.TempDir(), "sessions.db")
	cs := connect(t, "rounds-client", "--root", root, "--store", db)
	check := func(content string) session {
		t.Helper()
		var got session
		res := call(t, cs, mcpserver.ToolCheckCandidate, map[string]any{"path": "shapes.go", "content": content}, &got)
		if res.IsError {
			t.Fatalf("check_candidate: %s", text(res))
		}
		return got
	}
	r1 := check(replace(t, original, "return r.W * r.H", "return r.W + r.H"))
	r2 := check(replace(t, original, "return r.W * r.H", "return r.W *"))
	if r1.Session == "" || r2.Session != r1.Session || r1.Round != 1 || r2.Round != 2 || r1.Verdict != "wrong_answer" || r2.Verdict != "compile_error" {
		t.Errorf("rounds 1 and 2: %+v, %+v, want one session", r1, r2)
	}
	// The agent writes an edit: the next check starts a new session.
	edited := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
	if err := os.WriteFile(filepath.Join(root, "shapes.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r3 := check(replace(t, edited, "if ok == true {", "if ok {"))
	// The tests pass on disk now, so the goal is refactor: one alert
	// fixed, others remain.
	if r3.Session == r1.Session || r3.Round != 1 || !r3.KeepsTests || r3.Fixed != 1 || r3.Verdict != "alerts_remaining" || !strings.Contains(r3.Feedback, "remain") {
		t.Errorf("after the file changed: %+v, want round 1 of a new session, alerts_remaining", r3)
	}
	if scores := storedScores(t, cs, db); scores.Sessions != 2 {
		t.Errorf("fixloop report: %d sessions, want 2 (one of 2 rounds, one of 1)", scores.Sessions)
	}
}

// TestCancelCheck: a client's cancellation stops the check (the
// candidate's test would run for minutes); the server goes on.
func TestCancelCheck(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	tmp := t.TempDir()
	checking := make(chan struct{})
	var once sync.Once
	client := progressClient("cancel-client", func(msg string) {
		if msg == "checking the candidate" {
			once.Do(func() { close(checking) })
		}
	})
	cs, _ := start(t, client, []string{"TMPDIR=" + tmp}, "--root", root)
	slow := replace(t, original, "return r.W * r.H", "time.Sleep(10 * time.Minute)\n\treturn r.W * r.H")
	slow = replace(t, slow, "import (\n", "import (\n\t\"time\"\n")
	cancelMidCall(t, cs, mcpserver.ToolCheckCandidate, map[string]any{"path": "shapes.go", "content": slow}, checking)
	// The server goes on.
	var got candidate
	res := call(t, cs, mcpserver.ToolCheckCandidate, map[string]any{"path": "shapes.go", "content": replace(t, original, "if ok == true {", "if ok {")}, &got)
	if res.IsError || !got.Builds {
		t.Errorf("after the cancellation: %s %+v", text(res), got)
	}
	// No candidate's copy is left behind.
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		for _, prefix := range sandbox.TempPrefixes {
			if strings.HasPrefix(e.Name(), string(prefix)) {
				t.Errorf("left behind in TMPDIR: %s", e.Name())
			}
		}
	}
}

// TestHostileCandidate: the attack suite's hostile candidate, sent by an
// agent, deletes nothing and reads neither the SSH key nor the server's
// secrets into anything the client gets.
func TestHostileCandidate(t *testing.T) {
	t.Parallel()
	sandboxtest.NeedConfinement(t)
	const sshCanary, keyCanary = "SSH-CANARY-5e2a1b0f88", "API-KEY-CANARY-04c3d2e1bb"
	home, proj, victim := sandboxtest.HostileProject(t, sshCanary)
	client := mcp.NewClient(&mcp.Implementation{Name: "hostile-client", Version: "1"}, nil)
	cs, cmd := start(t, client, []string{"HOME=" + home, "OPENAI_API_KEY=" + keyCanary}, "--root", proj)
	hostile := sandboxtest.HostileCalc(home, cmd.Process.Pid, victim)
	for _, tool := range []string{mcpserver.ToolCheckCandidate, mcpserver.ToolDiagnostics} {
		res := call(t, cs, tool, map[string]any{"path": "calc.go", "content": hostile}, nil)
		b, _ := json.Marshal(res)
		got := string(b)
		if !strings.Contains(got, "/proc/1/environ") {
			t.Errorf("%s: the result lacks the candidate's output, so the test proves nothing: %s", tool, got)
		}
		for _, c := range []string{sshCanary, keyCanary} {
			if strings.Contains(got, c) {
				t.Errorf("%s: the result holds %s", tool, c)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
		t.Errorf("the candidate deleted a directory beside the project: %v", err)
	}
}

// sessionOut is the session tools' result as a client reads it.
type sessionOut struct {
	Summary struct {
		Goal     string `json:"goal"`
		Provider string `json:"provider"`
		Solved   bool   `json:"solved"`
		Stop     string `json:"stop"`
		Rounds   []struct {
			Verdict string `json:"verdict"`
		} `json:"rounds"`
		Final struct {
			Round int `json:"round"`
			Fixed int `json:"fixed"`
		} `json:"final"`
	} `json:"summary"`
	Diff      string `json:"diff"`
	Written   bool   `json:"written"`
	WriteNote string `json:"write_note"`
}

// TestRefactorWithRules: fixloop_refactor with the offline rules provider
// returns a diff and writes nothing, unless asked to.
func TestRefactorWithRules(t *testing.T) {
	t.Parallel()
	root, original := example(t)
	cs := connect(t, "rules-client", "--root", root, "--provider", "rules")
	path := filepath.Join(root, "shapes.go")
	var got sessionOut
	res := call(t, cs, mcpserver.ToolRefactor, map[string]any{"path": "shapes.go"}, &got)
	if res.IsError {
		t.Fatalf("refactor: %s", text(res))
	}
	if got.Summary.Goal != "refactor" || got.Summary.Provider != "rules" || got.Summary.Final.Fixed < 1 || !strings.Contains(got.Diff, "+++ b/shapes.go") || got.Written {
		t.Errorf("refactor: %+v", got)
	}
	if b, _ := os.ReadFile(path); string(b) != original {
		t.Fatal("refactor without write changed the file")
	}
	var written sessionOut
	res = call(t, cs, mcpserver.ToolRefactor, map[string]any{"path": "shapes.go", "write": true}, &written)
	if res.IsError || !written.Written {
		t.Fatalf("refactor with write: %s %+v", text(res), written)
	}
	if b, _ := os.ReadFile(path); string(b) == original {
		t.Error("refactor with write left the file as it was")
	}
}

// TestRepairWithModel: fixloop_repair with a scripted model: a repair that
// solves the file is written when asked; a model that does not answer is
// cancelled by the client, and the server goes on.
func TestRepairWithModel(t *testing.T) {
	t.Parallel()
	sandboxtest.NeedConfinement(t)
	root, original := example(t)
	fixed := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
	release := make(chan struct{})
	defer close(release)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed)},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed), Release: release},
	)
	asking := make(chan struct{}, 4)
	client := progressClient("repair-client", func(msg string) {
		if strings.Contains(msg, "asking the openai provider") {
			asking <- struct{}{}
		}
	})
	cs, _ := start(t, client, []string{"FIXLOOP_MCP_TEST_KEY=k"},
		"--store", "off", "--root", root, "--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-env", "FIXLOOP_MCP_TEST_KEY")

	var got sessionOut
	res := call(t, cs, mcpserver.ToolRepair, map[string]any{"path": "shapes.go", "write": true}, &got)
	if res.IsError || !got.Summary.Solved || got.Summary.Provider != "openai" || !got.Written || !strings.Contains(got.Diff, "2 * (r.W + r.H)") {
		t.Fatalf("repair: %s %+v", text(res), got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "shapes.go")); string(b) != fixed {
		t.Errorf("repair with write: the file is not the solved version:\n%s", b)
	}
	for len(asking) > 0 {
		<-asking
	}

	// The model does not answer: the client cancels mid-repair.
	if err := os.WriteFile(filepath.Join(root, "shapes.go"), []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelMidCall(t, cs, mcpserver.ToolRepair, map[string]any{"path": "shapes.go"}, asking)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("after the cancellation: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "shapes.go")); string(b) != original {
		t.Error("the cancelled repair changed the file")
	}
}

// TestNodeClient: a client fixloop did not write, the TypeScript SDK,
// lists the tools and checks a candidate. It runs where
// FIXLOOP_MCP_NODE_SDK names an npm prefix holding @modelcontextprotocol/sdk
// (.ci/run installs one) and node is on PATH.
func TestNodeClient(t *testing.T) {
	t.Parallel()
	prefix := os.Getenv("FIXLOOP_MCP_NODE_SDK")
	if prefix == "" {
		t.Skip("FIXLOOP_MCP_NODE_SDK is not set: no TypeScript SDK to test with")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	root, original := example(t)
	candidateFile := filepath.Join(t.TempDir(), "candidate.go")
	c := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
	if err := os.WriteFile(candidateFile, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "nodeclient", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, fixloopBinary(t), root, "shapes.go", candidateFile)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	cmd.Stderr = &logWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var got struct {
		Server     struct{ Name string } `json:"server"`
		Tools      []string              `json:"tools"`
		IsError    bool                  `json:"isError"`
		Structured candidate             `json:"structured"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	if got.Server.Name != "fixloop" || !slices.Contains(got.Tools, mcpserver.ToolCheckCandidate) || !slices.Contains(got.Tools, mcpserver.ToolDiagnostics) {
		t.Errorf("server %+v, tools %v", got.Server, got.Tools)
	}
	if s := got.Structured; got.IsError || !s.Builds || !s.KeepsTests || s.Verdict != "accepted" {
		t.Errorf("check_candidate through the TypeScript SDK: %s", out)
	}
}

// TestRepairOffersOnlyWhatHelps: a model's repair that also rewords a
// comment is offered without the comment; the tool's text and summary
// say what was dropped, and progress reports the search.
func TestRepairOffersOnlyWhatHelps(t *testing.T) {
	t.Parallel()
	sandboxtest.NeedConfinement(t)
	root, original := example(t)
	fixed := replace(t, original, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)")
	verbose := replace(t, fixed, "// Circle is a circle of radius R.", "// Circle is a round shape of radius R.")
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", verbose)})
	var (
		mu       sync.Mutex
		messages []string
		noted    = make(chan struct{}, 1)
	)
	client := progressClient("minimize-client", func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		messages = append(messages, msg)
		if strings.Contains(msg, "hunks dropped") {
			select {
			case noted <- struct{}{}:
			default:
			}
		}
	})
	cs, _ := start(t, client, []string{"FIXLOOP_MCP_TEST_KEY=k"},
		"--store", "off", "--root", root, "--provider", "openai", "--model", "m", "--base-url", srv.URL, "--api-key-env", "FIXLOOP_MCP_TEST_KEY")

	var got struct {
		Summary struct {
			Solved     bool   `json:"solved"`
			HunksNote  string `json:"hunks_note"`
			ModelFinal *struct {
				LinesEdited int `json:"lines_edited"`
			} `json:"model_final"`
		} `json:"summary"`
		Diff string `json:"diff"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	params := &mcp.CallToolParams{Name: mcpserver.ToolRepair, Arguments: map[string]any{"path": "shapes.go"}}
	params.SetProgressToken("minimize")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("repair: %v %s", err, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	const note = "1 of 2 hunks dropped: no alert fixed"
	if !got.Summary.Solved || got.Summary.HunksNote != note || got.Summary.ModelFinal == nil ||
		!strings.Contains(got.Diff, "2 * (r.W + r.H)") || strings.Contains(got.Diff, "round shape") {
		t.Errorf("repair: %s", b)
	}
	if txt := text(res); !strings.Contains(txt, "lines edited; "+note+"\n") {
		t.Errorf("the tool's text does not say what was dropped:\n%s", txt)
	}
	// Notifications may arrive after the result: wait for the round's.
	select {
	case <-noted:
	case <-time.After(callTimeout):
	}
	mu.Lock()
	all := strings.Join(messages, "\n")
	mu.Unlock()
	for _, want := range []string{"checking part 1 of the candidate", "(" + note + ")"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
}
