package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// parseRules parses args with the session flags alone.
func parseRules(t *testing.T, args ...string) (sessionRules, error) {
	t.Helper()
	fl := pflag.NewFlagSet("test", pflag.ContinueOnError)
	read := addSessionFlags(fl)
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	return read()
}

// TestSessionFlags: flags not given leave .fixloop.yaml's settings be;
// those given replace them, 0 turning a stuck rule off.
func TestSessionFlags(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Minimize.MaxChecks = 30
	cfg.Stuck.Repeats = 4
	r, err := parseRules(t)
	if err != nil {
		t.Fatal(err)
	}
	none := cfg
	r.apply(&none)
	if none.Minimize != cfg.Minimize || none.Stuck != cfg.Stuck {
		t.Errorf("no flags changed the settings: %+v %+v, want %+v %+v", none.Minimize, none.Stuck, cfg.Minimize, cfg.Stuck)
	}
	r, err = parseRules(t, "--minimize=false", "--minimize-checks", "5", "--minimize-budget", "30s", "--stuck-repeats", "0", "--stuck-same-feedback", "6")
	if err != nil {
		t.Fatal(err)
	}
	r.apply(&cfg)
	if want := (config.Minimize{Enabled: false, MaxChecks: 5, Budget: 30 * time.Second, Share: config.Default().Minimize.Share}); cfg.Minimize != want {
		t.Errorf("minimize %+v, want %+v", cfg.Minimize, want)
	}
	if want := (config.Stuck{Repeats: 0, SameFeedback: 6}); cfg.Stuck != want {
		t.Errorf("stuck %+v, want %+v", cfg.Stuck, want)
	}
	// A queued eval job carries them to its worker.
	data, err := json.Marshal(runSettings{Run: "r", Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	var back runSettings
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back.Rules, r) {
		t.Errorf("rules through JSON: %+v (%v), want %+v: %s", back.Rules, err, r, data)
	}
	if data, _ := json.Marshal(runSettings{Run: "r"}); strings.Contains(string(data), "rules") {
		t.Errorf("no flags, yet the job says: %s", data)
	}
}

func TestSessionFlagsUsage(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "testdata", "calc", "calc.go")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fix", "--minimize-checks", "0", file}, "--minimize-checks 0: want 1 to 100"},
		{[]string{"fix", "--minimize-budget", "1h", file}, "--minimize-budget 1h0m0s: want 1s to 30m0s"},
		{[]string{"fix", "--stuck-repeats", "11", file}, "--stuck-repeats 11: want 0 (never) to 10"},
		{[]string{"eval", "--stuck-same-feedback", "-1", filepath.Join("..", "testdata", "eval")}, "--stuck-same-feedback -1: want 0 (never) to 10"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestFixMinimize: a model answer that fixes the alert and rewords a
// comment is offered without the comment; fix says what it dropped, in
// the round, the result line and the JSON summary. --minimize=false
// offers the answer whole.
func TestFixMinimize(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	t.Setenv("FIXLOOP_MODEL", "")
	file := calcCopy(t)
	text, _ := os.ReadFile(file)
	fixed := strings.Replace(string(text), `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	verbose := strings.Replace(fixed, "// Sum adds the numbers.", "// Sum adds up all of the numbers.", 1)
	answer := openaitest.Reply{Content: openaitest.CodeReply("go", verbose)}
	fix := func(args ...string) (int, string, string) {
		srv := openaitest.New(t, answer)
		return run(t, append([]string{"fix", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
			"--api-key-env", "FIXLOOP_MINIMIZE_TEST_KEY", "--store", "off"}, append(args, file)...)...)
	}
	const note = "1 of 2 hunks dropped: no alert fixed"
	code, out, errOut := fix()
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"round 1/3: accepted (tests 4/4, alerts 0, fixed 1, new 0, 4 lines edited)\n  offers part of it: " + note + " (tests 4/4, fixed 1, new 0, 2 lines edited)\n",
		"result: round 1 (solved): tests 4/4, alerts 1 -> 0, fixed 1, new 0, 2 lines edited; " + note + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Sum adds up") {
		t.Errorf("the diff has the dropped hunk:\n%s", out)
	}

	code, out, errOut = fix("--json")
	if code != ExitOK {
		t.Fatalf("--json: exit %d\n%s%s", code, out, errOut)
	}
	var s struct {
		Hunks, HunksDropped int
		HunksNote           string `json:"hunks_note"`
		ModelFinal          *struct {
			LinesEdited int `json:"lines_edited"`
		} `json:"model_final"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if s.HunksNote != note || s.ModelFinal == nil || s.ModelFinal.LinesEdited != 4 {
		t.Errorf("--json: hunks_note %q, model_final %+v\n%s", s.HunksNote, s.ModelFinal, out)
	}

	code, out, errOut = fix("--minimize=false")
	if code != ExitOK {
		t.Fatalf("--minimize=false: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "+// Sum adds up all of the numbers.") || strings.Contains(out, "hunks") {
		t.Errorf("--minimize=false did not offer the answer whole:\n%s", out)
	}
}

// TestFixStuckRepeats: a model that gives the same broken answer again
// ends the session at once with --stuck-repeats 1, and fix says why.
func TestFixStuckRepeats(t *testing.T) {
	sandboxtest.NeedConfinement(t)
	t.Setenv("FIXLOOP_MODEL", "")
	file := calcCopy(t)
	text, _ := os.ReadFile(file)
	broken := strings.Replace(string(text), `return fmt.Sprintf("hello")`, `return "hello" +`, 1)
	reply := openaitest.Reply{Content: openaitest.CodeReply("go", broken)}
	srv := openaitest.New(t, reply, reply, reply)
	code, out, errOut := run(t, "fix", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-env", "FIXLOOP_STUCK_TEST_KEY", "--store", "off", "--rounds", "5", "--stuck-repeats", "1", file)
	if code != ExitProblems {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"round 2/5: compile_error",
		"  the same answer as round 1: not checked again\n",
		"no acceptable result (repeating): the model repeated an earlier answer\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "round 3/5") {
		t.Errorf("the session went on after the repeat:\n%s", out)
	}
}
