package main

// The langs mode (-langs): on Python, C++ and Java files, the time from an
// edit to the diagnostics that reflect it, in fixloop with its warm tools
// against fixloop with the cold ones (python.tools, cpp.tools and
// java.tools: cold), sample by sample alternated, whether the two designs
// settle on the same diagnostics, and the tools' peak resident memory
// (the server's descendants: the warm workers and any tool run).

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// langFile is one file the langs mode edits.
type langFile struct {
	Name string // the table's row
	Lang string // python, cpp or java
	Root string // the workspace folder
	File string // relative to Root
}

// parseLangFiles reads -langs: name=lang:root:file, comma-separated.
func parseLangFiles(s string) ([]langFile, error) {
	var out []langFile
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, rest, ok := strings.Cut(item, "=")
		parts := strings.Split(rest, ":")
		if !ok || len(parts) != 3 || name == "" {
			return nil, fmt.Errorf("-langs item %q: want name=lang:root:file", item)
		}
		switch parts[0] {
		case "python", "cpp", "java":
		default:
			return nil, fmt.Errorf("-langs item %q: language %q is none of python, cpp, java", item, parts[0])
		}
		out = append(out, langFile{Name: name, Lang: parts[0], Root: parts[1], File: parts[2]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-langs names no file")
	}
	return out, nil
}

// languageID is the LSP language identifier of lang.
func languageID(lang string) string {
	if lang == "cpp" {
		return "cpp"
	}
	return lang
}

// langTail returns where the edits of lang go in text and the k-th edit's
// text: a small function with a lint finding (a comparison to None, an if
// without braces), so that every edit changes the diagnostics. Java's goes
// before the class's closing brace.
func langTail(lang, text string, k int) (at int, tail string) {
	switch lang {
	case "python":
		return len(text), fmt.Sprintf("\n\ndef fixloop_bench_%d(a):\n    if a == None:\n        return %d\n    return 0\n", k, k)
	case "cpp":
		return len(text), fmt.Sprintf("\nint fixloop_bench_%d(int a) { if (a) return %d; return 0; }\n", k, k)
	default:
		at = strings.LastIndexByte(text, '}')
		if at < 0 {
			at = len(text)
		}
		return at, fmt.Sprintf("\n    public int fixloopBench%d(int a) { if (a == 0) return %d; return 0; }\n", k, k)
	}
}

// normalDiags is a publication's diagnostics with the edit's number taken
// out of messages, sorted: what two designs must agree on.
func normalDiags(p pub, k int) []string {
	num := fmt.Sprint(k)
	out := make([]string, 0, len(p.Diags))
	for _, d := range p.Diags {
		m := strings.NewReplacer("fixloop_bench_"+num, "fixloop_bench_K", "fixloopBench"+num, "fixloopBenchK").Replace(d.Message)
		out = append(out, fmt.Sprintf("%d\x00%s\x00%s", d.Line, d.Source, m))
	}
	slices.Sort(out)
	return out
}

// langSession is one server with its file open.
type langSession struct {
	*session
	design    string
	doc       *document
	at        int // where the edits go
	tailLen   int // the current edit's length in the text
	toolsPeak atomic.Int64
	stop      chan struct{}
	done      chan struct{}
}

// langSample is one edit's measurement.
type langSample struct {
	ms    float64 // -1: no diagnostics for the edit within the timeout
	final []string
}

// langResult is one file's row.
type langResult struct {
	File      langFile
	Lines     int
	MS        map[string][]float64 // design -> times of the edits
	Timeouts  map[string]int
	Agree     int // edits on which both designs settled on the same diagnostics
	Compared  int
	ToolsPeak map[string]int64 // design -> peak kB of the server's descendants
	Diags     int              // diagnostics of the last cold edit
	Err       string
}

// runLangs is the langs mode.
func runLangs(o options, files []langFile, extra json.RawMessage) error {
	bin, err := filepath.Abs(o.fixloop)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "lspbench-langs-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(work)
	}
	designs := []string{"warm", "cold"}
	kinds := map[string]*serverKind{}
	for _, d := range designs {
		settings := map[string]any{
			"debounce": 0,
			"tests":    map[string]any{"mode": "off"},
			"store":    map[string]any{"dsn": "off"},
			"trusted":  true,
		}
		if len(extra) > 0 {
			var more map[string]any
			if err := json.Unmarshal(extra, &more); err != nil {
				return fmt.Errorf("-lang-settings: %w", err)
			}
			maps.Copy(settings, more)
		}
		for _, lang := range []string{"python", "cpp", "java"} {
			sec, _ := settings[lang].(map[string]any)
			sec = maps.Clone(sec)
			if sec == nil {
				sec = map[string]any{}
			}
			sec["tools"] = d
			settings[lang] = sec
		}
		raw, _ := json.Marshal(settings)
		kinds[d] = &serverKind{
			Name: d, Argv: []string{bin, "serve", "--stdio", "--log-level", "debug"},
			Settings: raw, Section: "fixloop",
			CacheEnv: func(dir string) []string { return []string{"XDG_CACHE_HOME=" + dir} },
		}
	}
	start := time.Now()
	var results []*langResult
	for _, f := range files {
		logf("== %s (%s) %s", f.Name, f.Lang, f.File)
		res := runLangFile(o, work, f, designs, kinds)
		if res.Err != "" {
			logf("%s: %s", f.Name, res.Err)
		}
		results = append(results, res)
	}
	report := langReport(o, results, time.Since(start))
	fmt.Print(report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			return err
		}
	}
	for _, r := range results {
		switch {
		case r.Err != "":
			return fmt.Errorf("%s: %s", r.File.Name, r.Err)
		case r.Compared == 0:
			return fmt.Errorf("%s: no edit got diagnostics from both designs", r.File.Name)
		case r.Agree < r.Compared:
			return fmt.Errorf("%s: the warm and cold tools settled on different diagnostics after %d of %d edits", r.File.Name, r.Compared-r.Agree, r.Compared)
		}
	}
	return nil
}

// runLangFile starts one server per design on f's root, opens f, makes two
// edits untimed, then o.n timed edits per design, alternating which design
// goes first.
func runLangFile(o options, work string, f langFile, designs []string, kinds map[string]*serverKind) *langResult {
	res := &langResult{File: f, MS: map[string][]float64{}, Timeouts: map[string]int{}, ToolsPeak: map[string]int64{}}
	root, err := filepath.Abs(f.Root)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	path := filepath.Join(root, f.File)
	data, err := os.ReadFile(path)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	text := string(data)
	res.Lines = strings.Count(text, "\n")
	ctx := context.Background()
	sessions := map[string]*langSession{}
	defer func() {
		for _, s := range sessions {
			close(s.stop)
			<-s.done
			s.close()
		}
	}()
	for _, d := range designs {
		k := kinds[d]
		cache := filepath.Join(work, f.Name+"-"+d+"-cache")
		if err := os.MkdirAll(cache, 0o755); err != nil {
			res.Err = err.Error()
			return res
		}
		s, err := startSession(k, "fixloop "+d, root, append(os.Environ(), k.CacheEnv(cache)...), filepath.Join(work, f.Name+"-"+d+".log"))
		if err != nil {
			res.Err = err.Error()
			return res
		}
		ls := &langSession{session: s, design: d, stop: make(chan struct{}), done: make(chan struct{})}
		sessions[d] = ls
		go ls.sampleTools()
		ictx, cancel := context.WithTimeout(ctx, o.openTimeout)
		err = s.initialize(ictx, root)
		cancel()
		if err != nil {
			res.Err = err.Error()
			return res
		}
		if ls.doc, err = s.openAs(ctx, path, text, languageID(f.Lang)); err != nil {
			res.Err = fmt.Sprintf("%s: didOpen: %v", d, err)
			return res
		}
		ls.at, _ = langTail(f.Lang, text, 0)
	}
	// Tools run between the server's messages: a longer quiet than the
	// Go scenarios'.
	quiet := max(o.quiet, 500*time.Millisecond)
	for _, d := range designs {
		sessions[d].settleTree(quiet, o.openTimeout)
	}
	k := 0
	edit := func(d string) langSample {
		k++
		return sessions[d].edit(ctx, f.Lang, k, quiet, o.timeout)
	}
	for i := 0; i < 2; i++ { // untimed: first uses of each tool
		for _, d := range designs {
			edit(d)
		}
	}
	for i := 0; i < o.n; i++ {
		order := designs
		if i%2 == 1 {
			order = []string{designs[1], designs[0]}
		}
		k++ // both designs get the same edit
		finals := map[string][]string{}
		for _, d := range order {
			s := sessions[d].edit(ctx, f.Lang, k, quiet, o.timeout)
			if s.ms < 0 {
				res.Timeouts[d]++
				continue
			}
			res.MS[d] = append(res.MS[d], s.ms)
			finals[d] = s.final
		}
		if len(finals) == len(designs) {
			res.Compared++
			if slices.Equal(finals[designs[0]], finals[designs[1]]) {
				res.Agree++
			} else {
				logf("%s edit %d: the designs differ:\n  %s: %q\n  %s: %q", f.Name, k, designs[0], finals[designs[0]], designs[1], finals[designs[1]])
			}
			res.Diags = len(finals["cold"])
		}
	}
	for _, d := range designs {
		res.ToolsPeak[d] = sessions[d].toolsPeak.Load()
	}
	return res
}

// edit replaces the current edit with the k-th one, waits until the server
// and its tools are idle, and returns the time from the change to the
// first publication for its version that equals the last one (the
// diagnostics the server settled on).
func (s *langSession) edit(ctx context.Context, lang string, k int, quiet, timeout time.Duration) langSample {
	_, tail := langTail(lang, "", k)
	v, err := s.change(ctx, s.doc, replace{From: s.at, To: s.at + s.tailLen, Text: tail})
	t0 := time.Now()
	if err != nil {
		return langSample{ms: -1}
	}
	s.tailLen = len(tail)
	// Settled: idle, with at least one publication for the version.
	var final *pub
	var pubs []pub
	deadline := t0.Add(timeout)
	for final == nil && time.Now().Before(deadline) {
		s.settleTree(quiet, time.Until(deadline))
		pubs = s.rec.publications(s.doc.URI)
		for i := range pubs {
			if !pubs[i].At.Before(t0) && pubs[i].HasVersion && pubs[i].Version == v {
				final = &pubs[i]
			}
		}
	}
	if final == nil {
		return langSample{ms: -1}
	}
	want := normalDiags(*final, k)
	for _, p := range pubs {
		if !p.At.Before(t0) && p.HasVersion && p.Version == v && slices.Equal(normalDiags(p, k), want) {
			return langSample{ms: float64(p.At.Sub(t0).Microseconds()) / 1000, final: want}
		}
	}
	return langSample{ms: -1}
}

// settleTree waits until the server and its descendants are idle: no
// message for quiet and at most one clock tick of CPU time over it; it
// gives up after max.
func (s *langSession) settleTree(quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		t0 := treeTicks(s.pid)
		time.Sleep(quiet)
		if treeTicks(s.pid)-t0 <= 1 && time.Since(s.rec.lastMessage()) >= quiet {
			return
		}
	}
}

// sampleTools samples, every 100 ms, the resident memory of the server's
// descendants and keeps the largest sum.
func (s *langSession) sampleTools() {
	defer close(s.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.exited:
			return
		case <-t.C:
		}
		own := int64(0)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid)); err == nil {
			own, _ = statusKB(string(b), "VmRSS")
		}
		if kb := treeRSS(s.pid) - own; kb > s.toolsPeak.Load() {
			s.toolsPeak.Store(kb)
		}
	}
}

// treeTicks is the CPU time of pid and its descendants, in clock ticks.
func treeTicks(pid int) int64 {
	parents, ticks := procTable()
	total := ticks[pid]
	for _, p := range descendants(parents, pid) {
		total += ticks[p]
	}
	return total
}

// langReport is the langs mode's markdown table.
func langReport(o options, results []*langResult, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Edit to settled diagnostics in `fixloop serve`, warm tools against cold ones (python.tools, cpp.tools, java.tools), %d edits each, alternated; %s; took %s.\n\n",
		o.n, cpuModel(readFile("/proc/cpuinfo")), took.Round(time.Second))
	b.WriteString("| file | lines | warm p50 | cold p50 | warm/cold | same diagnostics | diagnostics | tools' peak RSS, warm (MB) | cold (MB) |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(&b, "| %s (%s) | %d | error: %s | | | | | | |\n", r.File.Name, r.File.Lang, r.Lines, r.Err)
			continue
		}
		w, c := percentile(r.MS["warm"], 50), percentile(r.MS["cold"], 50)
		fmt.Fprintf(&b, "| %s (%s) `%s` | %d | %s%s | %s%s | %s | %d/%d | %d | %s | %s |\n",
			r.File.Name, r.File.Lang, r.File.File, r.Lines,
			fmtMS(w), timeouts(r.Timeouts["warm"]), fmtMS(c), timeouts(r.Timeouts["cold"]),
			fmtRatio(ratio(w, c)), r.Agree, r.Compared, r.Diags, mb(r.ToolsPeak["warm"]), mb(r.ToolsPeak["cold"]))
	}
	return b.String()
}

func timeouts(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d timed out)", n)
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
