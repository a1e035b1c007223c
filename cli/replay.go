package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

type replayFlags struct {
	rerun    bool
	provider string
	model    string
	baseURL  string
	out      string
	jobs     int
}

func newReplayCommand(logs *logFlags) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:     "replay [--rerun] [--provider replay|openai] PATH...",
		Example: "  fixloop replay testdata/sessions/\n  fixloop replay ~/.local/state/fixloop/sessions.db\n  fixloop replay --rerun session.json",
		Short:   "Recompute the metrics of recorded sessions, re-check them with today's tools, or re-drive them with another model",
		Long: `Replay session records: files, directories searched for *.json records, or
a session store (a SQLite .db file, sqlite://PATH or a postgres:// URL; its
sessions stored in full mode).

Without flags, every record's session runs again on its recorded answers and
recorded checks, with no model and no tools, and every per-round and
per-session metric is compared with what was recorded, in the model's view
(its whole candidates) and the offered one (what each round offers,
minimised or salvaged), as fixloop report scores them.

--rerun checks the recorded answers again with today's compiler, analyzers
and tests (the recorded file's project must be on this machine), to show how
results change with tool versions. The file is looked for where it was
recorded, else by its path in its repository (the record's repo_path) below
the repository holding the record file, else below the current directory's.

A JSON file in a directory that is not a session record is skipped with a
note.

--provider openai sends the recorded sessions' tasks to another model
(--model, --base-url, or the usual environment) and writes the new sessions'
records to --out.

Records are replayed in parallel (--jobs, default one per core), with a
progress bar on a terminal; the report is in path order. Exit status: 0 when
every replay agrees with its record, 1 when any differs, 2 on errors.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &exitError{code: ExitUsage, err: errors.New("replay needs session records: record files (.json), directories of them, or a store (a SQLite file or a postgres:// URL)\nRun 'fixloop replay -h' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			var files, stores []string
			for _, a := range args {
				if isStore(a) {
					stores = append(stores, a)
				} else {
					files = append(files, a)
				}
			}
			var items []replayItem
			if len(files) > 0 {
				if items, err = readRecordFiles(files, cmd.ErrOrStderr()); err != nil {
					return &exitError{code: ExitUsage, err: err}
				}
			}
			for _, dsn := range stores {
				fromStore, err := storeRecords(cmd.Context(), dsn)
				if err != nil {
					return &exitError{code: ExitUsage, err: err}
				}
				items = append(items, fromStore...)
			}
			ts := toolset.New(logger, logs.redactor)
			defer ts.Close()
			newChecker := func(file string) (*refactor.Checker, error) {
				// The settings of the recorded file's project, as fix
				// used them (judge cases, linters, checks).
				cfg, problems := toolset.ResolveConfig(toolset.ConfigRoot(file))
				if len(problems) > 0 {
					return nil, fmt.Errorf("configuration: %w", problems)
				}
				a, err := ts.Linter(cfg)
				if err != nil {
					return nil, err
				}
				_, candidates := ts.Testers(cfg)
				return &refactor.Checker{Linter: a, Tester: candidates, TestTimeout: cfg.Tests.Timeout, TestWallTimeout: cfg.Tests.WallTimeout}, nil
			}
			if f.out != "" {
				if err := os.MkdirAll(f.out, 0o755); err != nil {
					return &exitError{code: ExitUsage, err: fmt.Errorf("--out: %w", err)}
				}
			}
			results := replayAll(cmd.Context(), items, f, newChecker, cmd.ErrOrStderr())
			differ := printReplay(cmd.OutOrStdout(), results, f)
			for _, r := range results {
				if r.err != nil {
					return &exitError{code: ExitUsage}
				}
			}
			if differ {
				return &exitError{code: ExitProblems}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.rerun, "rerun", false, "check the recorded answers with today's tools instead of the recorded checks")
	fl.StringVar(&f.provider, "provider", provider.KindReplay, "replay (the recorded answers) or openai (ask a model again)")
	fl.StringVar(&f.model, "model", "", "model for --provider openai (default $FIXLOOP_MODEL)")
	fl.StringVar(&f.baseURL, "base-url", "", "base URL for --provider openai (default $OPENAI_BASE_URL)")
	fl.StringVar(&f.out, "out", "", "directory for the new records of --provider openai")
	fl.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "records replayed at once")
	return cmd
}

// recordFile is a session record file to read: named by the user, or
// found in a directory they named.
type recordFile struct {
	path  string
	inDir bool
}

// recordPaths expands directories into the *.json files below them, in
// path order.
func recordPaths(args []string) ([]recordFile, error) {
	var paths []recordFile
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", a, err)
		}
		if !info.IsDir() {
			paths = append(paths, recordFile{path: a})
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				paths = append(paths, recordFile{path: p, inDir: true})
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", a, err)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no session records (*.json) in %s", strings.Join(args, ", "))
	}
	sort.Slice(paths, func(i, j int) bool { return paths[i].path < paths[j].path })
	return paths, nil
}

// readRecordFiles reads the session records args name (files, and the
// *.json files in directories). A JSON file in a directory that is not a
// session record (no "schema": another tool's data kept beside records,
// such as testdata/sessions-langs/langs.json) is skipped with a note on
// warn; one named directly, and a record fixloop cannot read, is an item
// with err set.
func readRecordFiles(args []string, warn io.Writer) ([]replayItem, error) {
	files, err := recordPaths(args)
	if err != nil {
		return nil, err
	}
	var items []replayItem
	var skipped []string
	for _, f := range files {
		rec, err := refactor.ReadRecord(f.path)
		name := displayPath(f.path)
		if f.inDir && errors.Is(err, refactor.ErrNotRecord) {
			fmt.Fprintf(warn, "fixloop: skipping %s: not a session record\n", name)
			skipped = append(skipped, name)
			continue
		}
		// A record that cannot be read is reported with the others.
		items = append(items, replayItem{name: name, path: f.path, rec: rec, err: err})
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("no session records in %s (%s: not session records)", strings.Join(args, ", "), strings.Join(skipped, ", "))
	}
	return items, nil
}

// isStore reports whether a replay argument names a session store.
func isStore(arg string) bool {
	return strings.HasPrefix(arg, "postgres://") || strings.HasPrefix(arg, "postgresql://") ||
		strings.HasPrefix(arg, "sqlite://") || strings.HasSuffix(arg, ".db")
}

// storeRecords reads the full records of every session in the store dsn.
// Each is named after the store, the session and the file it was about
// (its repository path), never after a temporary copy.
func storeRecords(ctx context.Context, dsn string) ([]replayItem, error) {
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	sessions, err := st.Sessions(ctx, store.Filter{})
	if err != nil {
		return nil, err
	}
	storeName := store.Redact(dsn)
	if !strings.Contains(dsn, "://") {
		storeName = displayPath(dsn)
	}
	var items []replayItem
	for _, s := range sessions {
		rec, err := st.Record(ctx, s.ID)
		if errors.Is(err, store.ErrNoRecord) {
			continue // stored as metrics only: nothing to replay
		}
		if err != nil {
			return nil, err
		}
		file := rec.RepoPath
		if file == "" {
			file = displayPath(rec.File)
		}
		items = append(items, replayItem{name: fmt.Sprintf("%s: session %s (%s)", storeName, rec.ID, file), rec: rec})
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("the store %s holds no full session records to replay", store.Redact(dsn))
	}
	return items, nil
}

// replayItem is one record to replay.
type replayItem struct {
	// name is how the report names it: the record file as given, or the
	// store, session id and file of a stored session.
	name string
	// path is the record file, "" for a stored session.
	path string
	rec  *refactor.Record
	// err says why the record could not be read (rec is nil).
	err error
}

// replayResult is one record's replay.
type replayResult struct {
	name  string
	rec   *refactor.Record
	got   *refactor.Record
	diffs []string
	err   error
}

// replayAll replays every record with f.jobs workers.
func replayAll(ctx context.Context, items []replayItem, f replayFlags, newChecker func(file string) (*refactor.Checker, error), stderr io.Writer) []replayResult {
	results := make([]replayResult, len(items))
	var bar *progressbar.ProgressBar
	if isTerminal(stderr) {
		bar = progressbar.NewOptions(len(items), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("replaying"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, f.jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = replayOne(ctx, items[i], f, newChecker)
				if bar != nil {
					_ = bar.Add(1)
				}
			}
		}()
	}
	for i := range items {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

// replayOne replays one record as f asks. Checking with the real tools
// needs the recorded file's project: the file is looked for where it was
// recorded, else by its repository path (see refactor.Record.Locate), and
// the session runs there.
func replayOne(ctx context.Context, item replayItem, f replayFlags, newChecker func(file string) (*refactor.Checker, error)) replayResult {
	res := replayResult{name: item.name, rec: item.rec, err: item.err}
	if item.err != nil {
		return res
	}
	rec := item.rec
	checker := refactor.RecordedChecker(rec)
	if f.rerun || f.provider == provider.KindOpenAI {
		file, err := rec.Locate(item.path)
		if err != nil {
			res.err = fmt.Errorf("%w; checking with real tools needs its project", err)
			return res
		}
		if checker, err = newChecker(file); err != nil {
			res.err = err
			return res
		}
		if file != rec.File {
			moved := *rec
			moved.File = file
			rec = &moved
		}
	}
	switch f.provider {
	case provider.KindReplay:
		res.got, res.err = refactor.Replay(ctx, rec, checker)
	case provider.KindOpenAI:
		p, _, err := provider.New(provider.Settings{Kind: provider.KindOpenAI, Model: f.model, BaseURL: f.baseURL})
		if err != nil {
			res.err = err
			return res
		}
		res.got, res.err = refactor.Rerun(ctx, rec, p, checker)
		if res.err == nil && f.out != "" {
			res.err = refactor.WriteRecord(filepath.Join(f.out, res.got.ID+".json"), res.got)
		}
		return res
	default:
		res.err = fmt.Errorf("unknown provider %q: use replay or openai", f.provider)
		return res
	}
	if res.err == nil {
		// The round and outcome measures, then the scores' measures in
		// the model's view and the offered one.
		res.diffs = refactor.Diff(rec, res.got)
		res.diffs = append(res.diffs, aggregate.DiffViews(aggregate.FromRecord(rec), aggregate.FromRecord(res.got))...)
	}
	return res
}

// printReplay reports each record in path order and says whether any
// replay differed from its record.
func printReplay(w io.Writer, results []replayResult, f replayFlags) bool {
	differ := false
	for _, r := range results {
		name := r.name
		switch {
		case r.err != nil:
			fmt.Fprintf(w, "%s: error: %v\n", name, r.err)
		case f.provider == provider.KindOpenAI:
			s := r.got.Summary()
			fmt.Fprintf(w, "%s: new session %s with %s: solved %v (round %d), fixed %d, new %d, %d lines edited\n",
				name, s.ID, r.got.Model, s.Solved, s.SolvedRound, s.Final.Fixed, s.Final.New, s.Final.LinesEdited)
		case len(r.diffs) == 0:
			fmt.Fprintf(w, "%s: ok: %d rounds, metrics match\n", name, len(r.rec.Rounds))
		default:
			differ = true
			what := "differs from the record"
			if f.rerun {
				what = "today's tools judge it differently"
			}
			fmt.Fprintf(w, "%s: %s:\n", name, what)
			for _, d := range r.diffs {
				fmt.Fprintf(w, "  %s\n", d)
			}
		}
	}
	return differ
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
