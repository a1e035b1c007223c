//go:build unix

package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
