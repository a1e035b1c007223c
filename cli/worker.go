package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	fl.DurationVar(&f.rescueAfter, "rescue-after", defaultRescueAfter, "run a session again when it has been running this long: its worker is taken to be dead (a session is stopped, as failed, at nine tenths of it); give every worker of a run the same, above its --session-timeout T: T + T/4 + 2m (eval's default)")
	return cmd
}

// runWorker works the queue until ctx ends.
func runWorker(ctx context.Context, f workerFlags, logger *slog.Logger, logs *logFlags, stderr io.Writer) error {
	q, err := queue.Open(ctx, f.queue)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer q.Close()
	pool := newWorkerPool(logger, toolset.New(logger, logs.redactor), f.store)
	defer pool.closeStores()
	pool.onDone = func(spec jobSpec, detail string, err error) {
		switch {
		case queue.IsGiveUp(err):
			fmt.Fprintf(stderr, "%s %s: given up: %v\n", spec.Settings.Run, spec.Settings.jobKey(spec.Job), err)
			return
		case err != nil:
			fmt.Fprintf(stderr, "%s %s: attempt failed (the queue retries it): %v\n", spec.Settings.Run, spec.Settings.jobKey(spec.Job), err)
			return
		}
		fmt.Fprintf(stderr, "%s %s: %s\n", spec.Settings.Run, spec.Settings.jobKey(spec.Job), detail)
	}
	fmt.Fprintf(stderr, "fixloop worker: working %s, %d at a time; Ctrl-C stops\n", store.Redact(q.String()), max(f.jobs, 1))
	if err := q.Work(ctx, queue.Options{Workers: f.jobs, RescueAfter: f.rescueAfter}, pool.work); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	fmt.Fprintln(stderr, "fixloop worker: stopped; its running sessions went back to the queue")
	return nil
}
