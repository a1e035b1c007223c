package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

// benchDataset links some of the bundled problems into a new dataset.
func benchDataset(tb testing.TB, problems ...string) string {
	tb.Helper()
	dir := tb.TempDir()
	for _, p := range problems {
		abs, err := filepath.Abs(filepath.Join(bundledDataset, p))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, p)); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// BenchmarkEvalQueue measures what the job queue costs a run and what
// --jobs buys: the same copy-original sessions on six bundled problems
// (each a check of the original with its linters and tests), run in turn
// (a) one after another, calling the session function directly, (b)
// through fixloop eval's River queue on SQLite with one worker, and (c)
// with two. It reports the ratios (b)/(a), the queue's overhead per
// session as a share of the session's own time, and (c)/(b).
func BenchmarkEvalQueue(b *testing.B) {
	if testing.Short() {
		b.Skip("runs sessions")
	}
	problems := []string{"py-sum", "py-sum-wrong", "py-average", "py-divisor", "cpp-sum-wrong", "go-calc"}
	dataset := benchDataset(b, problems...)
	b.Setenv("FIXLOOP_MODEL", "")
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	logger := slog.New(slog.DiscardHandler)
	logs := &logFlags{redactor: redact.New(os.Environ())}
	ctx := context.Background()
	loaded, err := eval.Load(dataset)
	if err != nil {
		b.Fatal(err)
	}
	direct := func() time.Duration {
		settings := runSettings{Run: "direct", Store: filepath.Join(b.TempDir(), "s.db"), Provider: "copy-original"}
		st, err := store.Open(ctx, settings.Store)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		ts := toolset.New(logger, logs.redactor)
		defer ts.Close()
		r := newEvalRunner(settings, st, logger, ts, newEndpointLimits(0, 0))
		t0 := time.Now()
		for _, p := range loaded {
			if _, err := r.session(ctx, evalJob{Problem: p}); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	queued := func(jobs int) time.Duration {
		f := evalFlags{provider: "copy-original", run: "queued", store: filepath.Join(b.TempDir(), "s.db"), jobs: jobs, rescueAfter: 30 * time.Minute, temperature: -1}
		t0 := time.Now()
		if err := runEval(ctx, dataset, f, logger, logs, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var a, q1, q2 []time.Duration
	for b.Loop() {
		// Alternating, so that the machine's load falls on all three alike.
		a = append(a, direct())
		q1 = append(q1, queued(1))
		q2 = append(q2, queued(2))
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2])
	}
	b.ReportMetric(med(q1)/med(a), "queue/direct")
	b.ReportMetric((med(q1)-med(a))/med(a)*100, "overhead-%")
	b.ReportMetric((med(q1)-med(a))/float64(len(problems))/float64(time.Millisecond), "overhead-ms/session")
	b.ReportMetric(med(q2)/med(q1), "jobs2/jobs1")
}
