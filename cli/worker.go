package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/eval/queue"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

type workerFlags struct {
	queue       string
	store       string
	jobs        int
	rescueAfter time.Duration
}

func newWorkerCommand(logs *logFlags) *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:   "worker --queue DSN [--jobs N] [--store DSN]",
		Short: "Run the sessions that fixloop eval --enqueue put in a job queue, until stopped",
		Long: `Work a fixloop eval job queue: take the sessions that fixloop eval --enqueue
(or a running eval) put in it, --jobs at a time, run each as eval would, and
store it in the run's store (or --store). Run one worker per machine against
the same PostgreSQL queue to share a run. A worker stopped with Ctrl-C puts
its running sessions back in the queue; a worker that dies leaves them
running until --rescue-after, when another worker runs them again. Each
session is stored once, whichever worker runs it.

It prints a line per session it finishes, counted per run ([n/N]: this
worker's n-th session of the run's N), says when the queue has no more work
for it (it then waits for more), and sums up when it stops.

The dataset's files must be at the same paths on every worker's machine (a
shared checkout or file system), with the tools their languages need.`,
		Example: "  fixloop eval --queue postgres://eval@db/fixloop --store postgres://eval@db/fixloop --enqueue --run big testdata/eval\n" +
			"  fixloop worker --queue postgres://eval@db/fixloop --jobs 4      # on each machine\n" +
			"  fixloop report --store postgres://eval@db/fixloop --run big",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			if f.queue == "" {
				return &exitError{code: ExitUsage, err: errors.New("worker needs --queue: the queue fixloop eval filled")}
			}
			return runWorker(cmd.Context(), f, logger, logs, cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.queue, "queue", "", "the job queue: a postgres:// URL or a SQLite file")
	fl.StringVar(&f.store, "store", "", "store sessions here instead of in the store each run names")
	fl.IntVar(&f.jobs, "jobs", 1, "sessions at a time")
	fl.DurationVar(&f.rescueAfter, "rescue-after", defaultRescueAfter, "run a session again when it has been running this long: its worker is taken to be dead (a session is stopped, as failed, at nine tenths of it); give every worker of a run the same, above its --session-timeout T: T + T/4 + 2m (eval's default; a worker warns of a run that needs more)")
	return cmd
}

// runWorker works the queue until ctx ends.
func runWorker(ctx context.Context, f workerFlags, logger *slog.Logger, logs *logFlags, stderr io.Writer) error {
	q, err := queue.Open(ctx, f.queue)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer q.Close()
	ts := toolset.New(logger, logs.redactor)
	defer ts.Close()
	pool := newWorkerPool(logger, ts, f.store)
	defer pool.closeStores()
	wlog := newWorkerLog(stderr, f.rescueAfter)
	pool.onDone = wlog.done
	work := func(ctx context.Context, job queue.Job) error {
		var spec jobSpec
		if json.Unmarshal(job.Spec, &spec) == nil {
			wlog.start(spec)
		}
		err := pool.work(ctx, job)
		wlog.end(spec, ctx.Err())
		return err
	}
	fmt.Fprintf(stderr, "fixloop worker: working %s, %d at a time; Ctrl-C stops\n", store.Redact(q.String()), max(f.jobs, 1))
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	idle := make(chan struct{})
	go func() {
		defer close(idle)
		watchIdle(wctx, q, wlog, workerIdlePoll)
	}()
	err = q.Work(ctx, queue.Options{Workers: f.jobs, RescueAfter: f.rescueAfter}, work)
	stop()
	<-idle
	fmt.Fprintln(stderr, wlog.summary())
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	return nil
}

// workerIdlePoll is how often a worker that has finished its sessions
// looks whether the queue has more.
const workerIdlePoll = 2 * time.Second

// watchIdle says, until ctx ends, each time the worker has finished
// sessions and runs none and the queue holds no more, that it waits.
func watchIdle(ctx context.Context, q *queue.Queue, l *workerLog, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !l.idleDue() {
			continue
		}
		if waiting, err := q.Waiting(ctx); err == nil && !waiting {
			l.idle()
		}
	}
}

// workerLog says what a worker does: a line per session it finishes,
// counted per run ([n/N] when the job says the run's size, [n] when not;
// n counts this worker's sessions), a warning per run whose session
// timeout the worker's --rescue-after cuts short, a line when the queue
// has no more work for it, and what it did in all when it stops.
type workerLog struct {
	w      io.Writer
	rescue time.Duration

	mu          sync.Mutex
	ran, gaveUp int
	running     int
	interrupted int             // sessions stopped, back in the queue
	noted       int             // ran+gaveUp when the worker last said it waits
	runs        map[string]int  // sessions finished, by run
	warned      map[string]bool // runs warned of
}

func newWorkerLog(w io.Writer, rescue time.Duration) *workerLog {
	return &workerLog{w: w, rescue: rescue, runs: make(map[string]int), warned: make(map[string]bool)}
}

// start hears of a session about to run: the first of a run whose
// session timeout outlasts the job's limit draws a warning.
func (l *workerLog) start(spec jobSpec) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running++
	run := spec.Settings.Run
	if l.warned[run] {
		return
	}
	l.warned[run] = true
	if w := rescueWarning(l.rescue, spec.Settings.SessionTimeout); w != "" {
		fmt.Fprintf(l.w, "fixloop worker: warning: run %s: %s\n", run, w)
	}
}

// end hears that a job's session returned, and why its context ended
// if it did: the worker stopping (the job goes back to the queue), or the
// job's time limit (an attempt failed, which done did not hear of).
func (l *workerLog) end(spec jobSpec, ctxErr error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running = max(l.running-1, 0)
	switch {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		run := spec.Settings.Run
		fmt.Fprintf(l.w, "%s %s %s: attempt failed (the queue retries it): the session ran past the job's limit, nine tenths of --rescue-after %s\n",
			workerCount(l.runs[run], spec.Total), run, spec.Settings.jobKey(spec.Job), l.rescue)
	case ctxErr != nil:
		l.interrupted++
	}
}

// done shows that a session ended, with its outcome or error (an error is
// retried by the queue, up to its attempts, unless it gave up).
func (l *workerLog) done(spec jobSpec, detail string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	run := spec.Settings.Run
	what := detail
	switch {
	case queue.IsGiveUp(err):
		what = "given up: " + err.Error()
		l.gaveUp++
	case err != nil:
		what = "attempt failed (the queue retries it): " + err.Error()
	default:
		l.ran++
		l.runs[run]++
	}
	fmt.Fprintf(l.w, "%s %s %s: %s\n", workerCount(l.runs[run], spec.Total), run, spec.Settings.jobKey(spec.Job), what)
}

// workerCount is a session line's counter: [n/N], or [n] when the run's
// size is not known.
func workerCount(n, total int) string {
	if total <= 0 {
		return fmt.Sprintf("[%d]", n)
	}
	return fmt.Sprintf("[%d/%d]", n, total)
}

// idleDue reports whether the worker runs nothing and has finished
// sessions since it last said it waits.
func (l *workerLog) idleDue() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running == 0 && l.ran+l.gaveUp > l.noted
}

// idle says that the queue has no more work for the worker, once per
// batch of sessions.
func (l *workerLog) idle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running > 0 || l.ran+l.gaveUp == l.noted {
		return
	}
	l.noted = l.ran + l.gaveUp
	fmt.Fprintf(l.w, "fixloop worker done: %s; the queue has no more work for now (waiting for more; Ctrl-C stops)\n", l.totals())
}

// totals are the sessions the worker finished, in a few words.
func (l *workerLog) totals() string {
	return fmt.Sprintf("%s ran, %d given up", countSessions(l.ran), l.gaveUp)
}

// countSessions is "1 session" or "n sessions".
func countSessions(n int) string {
	if n == 1 {
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}

// summary is the worker's last line.
func (l *workerLog) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := "fixloop worker done: " + l.totals() + "; stopped"
	if l.interrupted > 0 {
		s += fmt.Sprintf(", and %s it was running went back to the queue", countSessions(l.interrupted))
	}
	return s
}
