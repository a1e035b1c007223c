// Package queue is fixloop eval's job queue, on River: one job per session
// of a run, in the embedded SQLite database or in PostgreSQL, so that
// workers on many machines can share a run. A job that a dying worker
// leaves running is rescued and retried by another after RescueAfter; the
// job's session id is derived from the run and the problem, so a session
// run twice is stored once.
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	_ "modernc.org/sqlite" // the SQLite driver
)

// Job is one session to run: Run and Key name it, Spec says how (the
// command line's settings, as JSON).
type Job struct {
	Run  string          `json:"run"`
	Key  string          `json:"key"`
	Spec json.RawMessage `json:"spec"`
}

// Kind names fixloop's session jobs in River.
func (Job) Kind() string { return "fixloop_session" }

// InsertOpts makes a job unique by its arguments: enqueueing a run twice
// adds nothing while its jobs wait, run or have finished.
func (Job) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: MaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// MaxAttempts is how many times a failing job runs before it is given up.
const MaxAttempts = 3

// giveUp marks an error after which a job is not tried again.
type giveUp struct{ err error }

func (g *giveUp) Error() string { return g.err.Error() }
func (g *giveUp) Unwrap() error { return g.err }

// GiveUp wraps err so that the job that failed with it is given up at
// once, not tried again: what failed has been retried already (a model
// endpoint's requests), or cannot change by trying again.
func GiveUp(err error) error { return &giveUp{err: err} }

// IsGiveUp reports whether err came from GiveUp.
func IsGiveUp(err error) bool {
	var g *giveUp
	return errors.As(err, &g)
}

// Options configure a queue's workers.
type Options struct {
	// Workers is how many jobs run at a time; 0 means 1.
	Workers int
	// RescueAfter is how long a job may stay running before it counts as
	// left by a dead worker and runs again; 0 means 30 minutes. A job is
	// stopped, as failed, after nine tenths of it (River rescues only jobs
	// past their timeout).
	RescueAfter time.Duration
	// RetryAfter, when positive, is the wait before a failed job runs
	// again; 0 means River's backoff (attempts⁴ seconds).
	RetryAfter time.Duration
}

// fixedRetry waits the same time before every retry.
type fixedRetry time.Duration

func (d fixedRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(time.Duration(d)) }

// Queue is a River queue in one database.
type Queue struct {
	name    string
	enqueue func(ctx context.Context, jobs []Job) ([]int64, error)
	pending func(ctx context.Context, ids []int64) (int, []string, error)
	waiting func(ctx context.Context) (bool, error)
	work    func(ctx context.Context, opts Options, fn func(context.Context, Job) error) error
	close   func()
}

// Open opens (and migrates) the queue at dsn: a postgres:// URL or a
// SQLite file path.
func Open(ctx context.Context, dsn string) (*Queue, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("opening the job queue: %w", err)
		}
		q, err := open(ctx, riverpgxv5.New(pool), "PostgreSQL queue")
		if err != nil {
			pool.Close()
			return nil, err
		}
		inner := q.close
		q.close = func() { inner(); pool.Close() }
		return q, nil
	}
	path := strings.TrimPrefix(dsn, "sqlite://")
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(30000)")
	if err != nil {
		return nil, fmt.Errorf("opening the job queue %s: %w", path, err)
	}
	// River runs operations in parallel; SQLite takes one writer at a time.
	db.SetMaxOpenConns(1)
	q, err := open(ctx, riversqlite.New(db), "SQLite queue "+path)
	if err != nil {
		db.Close()
		return nil, err
	}
	inner := q.close
	q.close = func() { inner(); db.Close() }
	return q, nil
}

// open migrates River's tables and builds the queue on driver.
func open[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], name string) (*Queue, error) {
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("%s: migrating River's tables: %w", name, err)
	}
	inserter, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	q := &Queue{name: name, close: func() {}}
	q.enqueue = func(ctx context.Context, jobs []Job) ([]int64, error) {
		params := make([]river.InsertManyParams, len(jobs))
		for i, j := range jobs {
			params[i] = river.InsertManyParams{Args: j}
		}
		res, err := inserter.InsertMany(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("%s: enqueueing %d sessions: %w", name, len(jobs), err)
		}
		ids := make([]int64, len(res))
		for i, r := range res {
			ids[i] = r.Job.ID
		}
		// Read them back before anyone is told they are enqueued (a
		// full disk must not pass for a queue).
		found := 0
		for start := 0; start < len(ids); start += 100 {
			batch := ids[start:min(start+100, len(ids))]
			got, err := inserter.JobList(ctx, river.NewJobListParams().IDs(batch...).First(len(batch)))
			if err != nil {
				return nil, fmt.Errorf("%s: reading back %d enqueued sessions: %w", name, len(jobs), err)
			}
			found += len(got.Jobs)
		}
		if found != len(ids) {
			return nil, fmt.Errorf("%s: enqueued %d sessions, but only %d are in the queue", name, len(ids), found)
		}
		return ids, nil
	}
	q.pending = func(ctx context.Context, ids []int64) (int, []string, error) {
		left := 0
		var failed []string
		for start := 0; start < len(ids); start += 100 {
			batch := ids[start:min(start+100, len(ids))]
			res, err := inserter.JobList(ctx, river.NewJobListParams().IDs(batch...).First(len(batch)))
			if err != nil {
				return 0, nil, fmt.Errorf("%s: listing jobs: %w", name, err)
			}
			for _, j := range res.Jobs {
				switch j.State {
				case rivertype.JobStateCompleted:
				case rivertype.JobStateDiscarded, rivertype.JobStateCancelled:
					var job Job
					_ = json.Unmarshal(j.EncodedArgs, &job)
					msg := job.Key
					if n := len(j.Errors); n > 0 {
						msg += ": " + j.Errors[n-1].Error
					}
					failed = append(failed, msg)
				default:
					left++
				}
			}
		}
		return left, failed, nil
	}
	q.waiting = func(ctx context.Context) (bool, error) {
		res, err := inserter.JobList(ctx, river.NewJobListParams().States(rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled).First(1))
		if err != nil {
			return false, fmt.Errorf("%s: listing waiting jobs: %w", name, err)
		}
		return len(res.Jobs) > 0, nil
	}
	q.work = func(ctx context.Context, opts Options, fn func(context.Context, Job) error) error {
		workers := river.NewWorkers()
		river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[Job]) error {
			err := fn(ctx, job.Args)
			var g *giveUp
			switch {
			case err == nil:
				return nil
			case errors.As(err, &g):
				return river.JobCancel(g.err)
			case errors.Is(ctx.Err(), context.DeadlineExceeded):
				return fmt.Errorf("the session ran past the job's time limit: %w", err)
			case ctx.Err() != nil:
				// Stopped, not failed: back to the queue without
				// spending an attempt.
				return river.JobSnooze(time.Second)
			}
			return err
		}))
		rescue := opts.RescueAfter
		if rescue <= 0 {
			rescue = 30 * time.Minute
		}
		var retry river.ClientRetryPolicy
		if opts.RetryAfter > 0 {
			retry = fixedRetry(opts.RetryAfter)
		}
		client, err := river.NewClient(driver, &river.Config{
			RetryPolicy:          retry,
			Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: max(opts.Workers, 1)}},
			Workers:              workers,
			JobTimeout:           rescue * 9 / 10,
			RescueStuckJobsAfter: rescue,
			FetchPollInterval:    100 * time.Millisecond,
			FetchCooldown:        50 * time.Millisecond,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := client.Start(ctx); err != nil {
			if ctx.Err() != nil {
				return nil // stopped before it started
			}
			return fmt.Errorf("%s: starting workers: %w", name, err)
		}
		<-ctx.Done()
		// Ctrl-C: the running sessions are cancelled; their jobs go back
		// to the queue for the next worker.
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := client.StopAndCancel(stop); err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("%s: stopping workers: %w", name, err)
		}
		return nil
	}
	return q, nil
}

// String names the queue for messages.
func (q *Queue) String() string { return q.name }

// Enqueue adds jobs, reads them back, and returns their ids (a job
// enqueued before, still waiting or finished, keeps its id). An error
// means that not every job is known to be in the queue.
func (q *Queue) Enqueue(ctx context.Context, jobs []Job) ([]int64, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	return q.enqueue(ctx, jobs)
}

// Pending reports how many of the jobs ids are not finished, and which
// were given up (with their last error).
func (q *Queue) Pending(ctx context.Context, ids []int64) (left int, failed []string, err error) {
	return q.pending(ctx, ids)
}

// Waiting reports whether the queue holds jobs that no worker runs yet:
// waiting to run, or to be tried again. Jobs running elsewhere do not
// count.
func (q *Queue) Waiting(ctx context.Context) (bool, error) {
	return q.waiting(ctx)
}

// Work runs fn on the queue's jobs, opts.Workers at a time, until ctx
// ends. A job whose fn returns an error runs again later, up to
// MaxAttempts times.
func (q *Queue) Work(ctx context.Context, opts Options, fn func(context.Context, Job) error) error {
	return q.work(ctx, opts, fn)
}

// Close closes the queue's database.
func (q *Queue) Close() { q.close() }
