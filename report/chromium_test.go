//go:build unix

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/runner"
)

// chromiumPath is where Debian's chromium package installs the browser.
const chromiumPath = "/usr/bin/chromium"

// chromium runs headless Chromium with args, bounded to 30 s; the whole
// process group is killed when the time is up.
func chromium(t *testing.T, args ...string) []byte {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is required in CI (apt-get install -y chromium): %v", err)
		}
		t.Skipf("no %s: %v", chromiumPath, err)
	}
	// Chromium's start is slow on a loaded machine: room (issue 23).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromiumPath, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// Leave no helper processes behind.
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		t.Fatalf("chromium timed out: %s", stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.Bytes()
}

func writePage(t *testing.T, model string) string {
	t.Helper()
	s := twoModels()
	if model != "" {
		s.By["model"][model] = s.By["model"]["gpt-4o"]
	}
	var buf bytes.Buffer
	if err := HTML(&buf, s, "fixloop report"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestChromiumDOM(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	dom := string(chromium(t, "--dump-dom", "file://"+writePage(t, evil)))
	got := charts(dom)
	for _, c := range []struct {
		name         string
		paths, rects int
	}{
		{"isr", 3, 3},        // at least one line per model; a legend swatch each
		{"verdicts", 1, 9},   // stacked segments
		{"categories", 1, 6}, // Fixed and New per category
		{"lines", 1, 3},      // one bar per model
	} {
		n, ok := got[c.name]
		if !ok {
			t.Errorf("rendered DOM has no data-chart=%q svg", c.name)
			continue
		}
		if n[0] < c.paths || n[1] < c.rects {
			t.Errorf("chart %s has %d paths and %d rects, want at least %d and %d", c.name, n[0], n[1], c.paths, c.rects)
		}
	}
	if len(got) != 4 {
		t.Errorf("rendered DOM has charts %v, want 4", got)
	}
	if strings.Contains(dom, "<script") {
		t.Error("the model name became a script element")
	}
	if !strings.Contains(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the model name is not shown as text")
	}
}

func TestChromiumScreenshot(t *testing.T) {
	page := writePage(t, "")
	shot := filepath.Join(t.TempDir(), "report.png")
	chromium(t, "--screenshot="+shot, "--window-size=1200,2000", "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 2000 {
		t.Errorf("screenshot is %v, want 1200×2000", b)
	}
	// Ink: pixels clearly darker or more colorful than the near-white page.
	ink := 0
	colors := map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if min(r, g, bl)>>8 < 200 {
				ink++
			}
			if len(colors) < 1000 {
				colors[(r>>12)<<8|(g>>12)<<4|bl>>12] = true
			}
		}
	}
	if share := float64(ink) / float64(b.Dx()*b.Dy()); share < 0.02 {
		t.Errorf("screenshot looks blank: %.2f%% ink", 100*share)
	}
	if len(colors) < 20 {
		t.Errorf("screenshot has only %d colors", len(colors))
	}
	if out := os.Getenv("REPORT_PNG"); out != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(out, data, 0o644)
	}
}

// measureScript, put at the end of a report page, measures what Chromium
// drew and writes it into the page as JSON, for --dump-dom: every legend
// label's and swatch's box in its chart's user units (the viewBox's), and
// the categories chart's numbers as shown (the values on the bars, the
// alerts before from the bars' titles) beside the tiles.
const measureScript = `<script>
(() => {
  const out = {legends: [], categories: [], tiles: {}};
  for (const svg of document.querySelectorAll("svg[data-chart]")) {
    const vb = svg.viewBox.baseVal;
    for (const el of svg.querySelectorAll("g.legend text, g.legend rect")) {
      const b = el.getBBox();
      out.legends.push({chart: svg.dataset.chart, tag: el.tagName, text: el.textContent,
        x: b.x, y: b.y, w: b.width, h: b.height, vbx: vb.x, vby: vb.y, vbw: vb.width, vbh: vb.height});
    }
  }
  for (const g of document.querySelectorAll('svg[data-chart="categories"] g.category')) {
    const vals = [...g.querySelectorAll("text.val")].map(t => Number(t.textContent));
    const m = /of (\d+) before/.exec(g.querySelector("rect title").textContent);
    out.categories.push({fixed: vals[0], new: vals[1], before: m ? Number(m[1]) : -1});
  }
  for (const t of document.querySelectorAll(".tile")) {
    out.tiles[t.querySelector(".l").textContent] = {value: t.querySelector(".v").textContent, note: t.querySelector(".n").textContent};
  }
  const pre = document.createElement("pre");
  pre.id = "measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

// measured is what measureScript writes.
type measured struct {
	Legends []struct {
		Chart, Tag, Text   string
		X, Y, W, H         float64
		VBX, VBY, VBW, VBH float64
	}
	Categories []struct{ Fixed, New, Before int }
	Tiles      map[string]struct{ Value, Note string }
}

// measure renders s's page in Chromium with measureScript and returns its
// measures.
func measure(t *testing.T, s *aggregate.Scores) measured {
	t.Helper()
	var buf bytes.Buffer
	if err := HTML(&buf, s, "fixloop report"); err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(buf.String(), "</body>", measureScript+"</body>", 1)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(chromium(t, "--dump-dom", "--window-size=1200,2000", "file://"+path))
	_, rest, ok := strings.Cut(dom, `<pre id="measure">`)
	data, _, ok2 := strings.Cut(rest, "</pre>")
	if !ok || !ok2 {
		t.Fatalf("the page has no measures; the script did not run:\n%s", dom)
	}
	var m measured
	if err := json.Unmarshal([]byte(html.UnescapeString(data)), &m); err != nil {
		t.Fatalf("measures %s: %v", data, err)
	}
	return m
}

// TestChromiumLegendInside checks, in Chromium's layout, that every legend
// label and swatch lies inside its chart's viewBox, descenders included
// (issue 28: labels on the viewBox's last pixels were cut), with a legend
// of one row and one of several.
func TestChromiumLegendInside(t *testing.T) {
	s := twoModels()
	// Many verdicts: the verdict chart's legend takes several rows.
	s.VerdictMix = append(s.VerdictMix, map[string]int{"memory_limit_exceeded": 1, "no_code": 1, "a_long_unknown_verdict_by_a_plugin": 1, "syntax_typo": 1})
	m := measure(t, s)
	charts := map[string]int{}
	for _, l := range m.Legends {
		charts[l.Chart]++
		if l.H <= 0 || l.W <= 0 {
			t.Errorf("%s legend %s %q has an empty box %+v", l.Chart, l.Tag, l.Text, l)
			continue
		}
		const eps = 0.01
		if l.X < l.VBX-eps || l.Y < l.VBY-eps || l.X+l.W > l.VBX+l.VBW+eps || l.Y+l.H > l.VBY+l.VBH+eps {
			t.Errorf("%s legend %s %q: box x %.1f–%.1f, y %.1f–%.1f is not inside the viewBox %g %g %g %g",
				l.Chart, l.Tag, l.Text, l.X, l.X+l.W, l.Y, l.Y+l.H, l.VBX, l.VBY, l.VBW, l.VBH)
		}
	}
	for _, c := range []string{"isr", "verdicts", "categories"} {
		if charts[c] < 4 {
			t.Errorf("chart %s has %d legend boxes measured, want at least 4 (2 labels, 2 swatches)", c, charts[c])
		}
	}
}

// TestChromiumCategoriesMatchTiles checks, on the rendered page, that the
// categories chart is over the tiles' population (issue 28: it showed new
// alerts of repair sessions beside a New@P of 0.0%): the new alerts on its
// bars over the alerts before are the New@P tile, and fixed minus new over
// before is Reduction@P; and that its title says which sessions it counts.
func TestChromiumCategoriesMatchTiles(t *testing.T) {
	for name, s := range map[string]*aggregate.Scores{
		"two models": twoModels(),
		// Repair sessions introduced alerts; the passing refactor ones none.
		"no new at P": func() *aggregate.Scores {
			s := twoModels()
			s.Categories[runner.CategoryStyle] = aggregate.CategoryCounts{Before: 9, Fixed: 7, New: 4}
			s.Refactor.CategoriesAtP = map[runner.Category]aggregate.CategoryCounts{runner.CategoryStyle: {Before: 10, Fixed: 6}}
			s.Refactor.NewAtP, s.Refactor.ReductionAtP = v(0), v(0.6)
			return s
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			m := measure(t, s)
			if len(m.Categories) == 0 {
				t.Fatal("the categories chart shows no category")
			}
			var before, fixed, nw int
			for _, c := range m.Categories {
				before, fixed, nw = before+c.Before, fixed+c.Fixed, nw+c.New
			}
			red, ok := m.Tiles["Reduction@P"]
			if !ok {
				t.Fatalf("no Reduction@P tile in %v", m.Tiles)
			}
			if want := "New@P " + share(float64(nw)/float64(before)); red.Note != want {
				t.Errorf("the chart shows %d new of %d before (%q), the tile %q", nw, before, want, red.Note)
			}
			if want := share(float64(fixed-nw) / float64(before)); red.Value != want {
				t.Errorf("the chart shows %d fixed, %d new of %d before (Reduction@P %s), the tile %s", fixed, nw, before, want, red.Value)
			}
		})
	}
	dom := string(chromium(t, "--dump-dom", "file://"+writePage(t, "")))
	if !strings.Contains(dom, "Alerts fixed vs introduced (passing refactor sessions)") {
		t.Error("the categories chart's title does not say which sessions it counts")
	}
}
