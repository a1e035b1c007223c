// Package store saves fixloop sessions to a SQL database: an embedded
// SQLite file by default (pure Go, no cgo) or a shared PostgreSQL database,
// both with the same schema and migrations. In full mode a session keeps its
// whole record (source text included); in metrics mode only the summary the
// scores need ([aggregate.Session]), so a team can share a store without
// sharing code.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	_ "modernc.org/sqlite"             // driver "sqlite"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
)

// Mode says how much of a session the store keeps.
type Mode string

// Modes.
const (
	// ModeFull keeps the whole record, source text included: the default
	// for a local store.
	ModeFull Mode = "full"
	// ModeMetrics keeps only the summary the scores need and no source
	// text: for a store shared by a team.
	ModeMetrics Mode = "metrics"
)

// ParseMode validates a mode name; "" is ModeFull.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeFull:
		return ModeFull, nil
	case ModeMetrics:
		return ModeMetrics, nil
	}
	return "", fmt.Errorf("unknown store mode %q: use full or metrics", s)
}

// ErrNotFound is returned (wrapped) when the store has no such session.
var ErrNotFound = errors.New("no such session")

// ErrNoRecord is returned (wrapped) by [Store.Record] for a session saved in
// metrics mode.
var ErrNoRecord = errors.New("the session was saved in metrics mode, without its record")

// Store is an open session store. It is safe for concurrent use.
type Store struct {
	db      *sql.DB
	dialect dialect
	name    string // the DSN without secrets, for messages
}

type dialect int

const (
	sqlite dialect = iota
	postgres
)

// DefaultDSN is the SQLite file $XDG_STATE_HOME/fixloop/sessions.db, or
// ~/.local/state/fixloop/sessions.db when XDG_STATE_HOME is unset.
func DefaultDSN() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "fixloop", "sessions.db")
}

// Open opens the store at dsn and brings its schema up to date. A dsn
// starting with postgres:// or postgresql:// is a PostgreSQL database;
// anything else is SQLite: a path, "sqlite://path" or a "file:" URI. An
// empty dsn is [DefaultDSN].
func Open(ctx context.Context, dsn string) (*Store, error) {
	if dsn == "" {
		dsn = DefaultDSN()
	}
	s := &Store{name: Redact(dsn)}
	if keywordDSN.MatchString(dsn) {
		return nil, s.wrap(errors.New("write a PostgreSQL store as a URL: postgres://user:password@host:port/database"))
	}
	var driver, source string
	if isPostgres(dsn) {
		s.dialect, driver, source = postgres, "pgx", dsn
	} else {
		var err error
		s.dialect, driver = sqlite, "sqlite"
		if source, err = sqliteSource(dsn); err != nil {
			return nil, s.wrap(err)
		}
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, s.wrap(scrub(err, dsn))
	}
	s.db = db
	if s.dialect == sqlite {
		// One writer at a time; SQLite serialises them anyway, and one
		// connection keeps the pragmas simple.
		db.SetMaxOpenConns(1)
	}
	err = retryBusy(ctx, func() error {
		if err := db.PingContext(ctx); err != nil {
			return err
		}
		return s.migrate(ctx)
	})
	if err != nil {
		db.Close()
		return nil, s.wrap(scrub(err, dsn))
	}
	return s, nil
}

// busyWait bounds how long Open retries a SQLite database that another
// connection holds.
const busyWait = 15 * time.Second

// retryBusy runs f again, with a short pause, while it fails with SQLite's
// "database is locked": a connection that switches a new database to WAL,
// or migrates it, while another process creates it (the server's store
// writer and a report, say) gets SQLITE_BUSY at once, without waiting out
// busy_timeout.
func retryBusy(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(busyWait)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		err := f()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY.
func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

func (s *Store) wrap(err error) error {
	return fmt.Errorf("opening the session store %s: %w", s.name, err)
}

// String is the store's DSN without secrets.
func (s *Store) String() string { return s.name }

func isPostgres(dsn string) bool {
	l := strings.ToLower(dsn)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// keywordDSN matches a PostgreSQL DSN in keyword=value form ("host=db
// password=..."), which the store does not take: it would otherwise be read
// as a SQLite path and its password printed in messages.
var keywordDSN = regexp.MustCompile(`(^|\s)(host|hostaddr|dbname|user|password|port|sslmode)=`)

// keywordPassword is the password field of a keyword=value DSN.
var keywordPassword = regexp.MustCompile(`password=\S*`)

// sqliteSource turns a SQLite DSN into the driver's data source name, with
// a busy timeout, write-ahead logging and immediate write transactions, and
// creates the file's directory.
func sqliteSource(dsn string) (string, error) {
	const params = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	if strings.HasPrefix(dsn, "file:") {
		path := strings.TrimPrefix(dsn, "file:")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if p, err := url.PathUnescape(path); err == nil && p != "" && !strings.HasPrefix(p, ":memory:") {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return "", err
			}
		}
		if strings.Contains(dsn, "?") {
			return dsn + "&" + params, nil
		}
		return dsn + "?" + params, nil
	}
	path := strings.TrimPrefix(dsn, "sqlite://")
	if path == "" {
		return "", errors.New("no database file")
	}
	if strings.ContainsRune(path, '?') {
		return "", errors.New("a SQLite path must not contain '?'; use a file: URI")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path + "?" + params, nil
}

// Redact returns dsn without its password, for messages.
func Redact(dsn string) string {
	if keywordDSN.MatchString(dsn) {
		return keywordPassword.ReplaceAllString(dsn, "password=xxxxx")
	}
	if !isPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		// Do not risk printing what might hold a password.
		scheme, _, _ := strings.Cut(dsn, "://")
		return scheme + "://(unparsable DSN)"
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "password") {
			q.Set(k, "xxxxx")
		}
	}
	u.RawQuery = q.Encode()
	return u.Redacted()
}

// scrub removes dsn's password from an error message, should a driver have
// quoted the DSN or its password field. (It does not replace every
// occurrence of the password's text, which may be an ordinary word.)
func scrub(err error, dsn string) error {
	if err == nil || !isPostgres(dsn) {
		return err
	}
	msg := err.Error()
	pairs := []string{dsn, Redact(dsn)}
	if u, perr := url.Parse(dsn); perr == nil {
		var secrets []string
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p, url.UserPassword("", p).String()[1:])
		}
		for k, vs := range u.Query() {
			if strings.EqualFold(k, "password") {
				secrets = append(secrets, vs...)
			}
		}
		for _, p := range secrets {
			if p == "" {
				continue
			}
			pairs = append(pairs,
				":"+p+"@", ":xxxxx@",
				"password="+p, "password=xxxxx",
				"password: "+p, "password: xxxxx",
				"password='"+p+"'", "password=xxxxx",
			)
		}
	}
	if out := strings.NewReplacer(pairs...).Replace(msg); out != msg {
		return errors.New(out)
	}
	return err
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// rebind rewrites ? placeholders as $1, $2, ... for PostgreSQL. The
// queries here have no ? inside string literals.
func (s *Store) rebind(q string) string {
	if s.dialect != postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// timeFormat stores times as fixed-width UTC text, so that text order is
// time order in both dialects.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// columns of the sessions table, in insert order.
var columns = []string{
	"id", "created", "workspace", "file", "language", "goal", "provider", "model",
	"k", "solved_round", "passed", "alerts_before", "fixed", `"new"`, "lines_edited",
	"session_json", "record_json", "mode", "saved", "run", "problem",
}

// Save stores rec, replacing any session with the same id. In metrics mode
// only its summary is kept.
func (s *Store) Save(ctx context.Context, rec *refactor.Record, mode Mode, workspace string) error {
	if rec == nil || rec.ID == "" {
		return errors.New("saving a session: the record has no id")
	}
	mode, err := ParseMode(string(mode))
	if err != nil {
		return err
	}
	sum := Summary(rec, workspace)
	sumJSON, err := json.Marshal(sum)
	if err != nil {
		return fmt.Errorf("saving session %s: encoding its summary: %w", rec.ID, err)
	}
	var recJSON sql.NullString
	if mode == ModeFull {
		data, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("saving session %s: encoding its record: %w", rec.ID, err)
		}
		recJSON = sql.NullString{String: string(data), Valid: true}
	}
	passed := 0
	if sum.Passed {
		passed = 1
	}
	var run, problem string
	if rec.Eval != nil {
		run, problem = rec.Eval.Run, rec.Eval.Problem
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ")
	var set []string
	for _, c := range columns[1:] {
		set = append(set, c+" = excluded."+c)
	}
	q := "INSERT INTO sessions (" + strings.Join(columns, ", ") + ") VALUES (" + marks + ")" +
		" ON CONFLICT (id) DO UPDATE SET " + strings.Join(set, ", ")
	_, err = s.db.ExecContext(ctx, s.rebind(q),
		sum.ID, formatTime(sum.Created), sum.Workspace, sum.File, sum.Language, sum.Goal, sum.Provider, sum.Model,
		sum.K, sum.SolvedRound, passed, sum.AlertsBefore, sum.Fixed, sum.New, sum.LinesEdited,
		string(sumJSON), recJSON, string(mode), formatTime(time.Now()), run, problem,
	)
	if err != nil {
		return fmt.Errorf("saving session %s to %s: %w", rec.ID, s.name, err)
	}
	return nil
}

// Filter selects sessions. Zero fields select everything; Since is
// inclusive and Until exclusive.
type Filter struct {
	Since, Until time.Time
	Language     string
	Model        string
	Goal         string
	Workspace    string
	// Run selects the sessions of one fixloop eval run.
	Run string
}

// Sessions returns the summaries of the sessions f selects, ordered by
// creation time and then id.
func (s *Store) Sessions(ctx context.Context, f Filter) ([]aggregate.Session, error) {
	var where []string
	var args []any
	add := func(cond string, arg any) {
		where = append(where, cond)
		args = append(args, arg)
	}
	if !f.Since.IsZero() {
		add("created >= ?", formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		add("created < ?", formatTime(f.Until))
	}
	for _, c := range []struct{ col, val string }{
		{"language", f.Language}, {"model", f.Model}, {"goal", f.Goal}, {"workspace", f.Workspace}, {"run", f.Run},
	} {
		if c.val != "" {
			add(c.col+" = ?", c.val)
		}
	}
	q := "SELECT id, session_json FROM sessions"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created, id"
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", s.name, err)
	}
	defer rows.Close()
	out := []aggregate.Session{}
	for rows.Next() {
		var id, data string
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("listing sessions in %s: %w", s.name, err)
		}
		var sess aggregate.Session
		if err := json.Unmarshal([]byte(data), &sess); err != nil {
			return nil, fmt.Errorf("listing sessions in %s: decoding session %s: %w", s.name, id, err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", s.name, err)
	}
	return out, nil
}

// A RunSession is one stored session of an eval run.
type RunSession struct {
	ID, Problem, Provider, Model string
}

// RunSessions returns the stored sessions of run: what a resumed run
// skips.
func (s *Store) RunSessions(ctx context.Context, run string) ([]RunSession, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind("SELECT id, problem, provider, model FROM sessions WHERE run = ? ORDER BY problem, id"), run)
	if err != nil {
		return nil, fmt.Errorf("listing the sessions of run %q in %s: %w", run, s.name, err)
	}
	defer rows.Close()
	var out []RunSession
	for rows.Next() {
		var r RunSession
		if err := rows.Scan(&r.ID, &r.Problem, &r.Provider, &r.Model); err != nil {
			return nil, fmt.Errorf("listing the sessions of run %q in %s: %w", run, s.name, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing the sessions of run %q in %s: %w", run, s.name, err)
	}
	return out, nil
}

// Record returns the whole record of session id; only sessions saved in
// full mode have one ([ErrNoRecord]).
func (s *Store) Record(ctx context.Context, id string) (*refactor.Record, error) {
	var data sql.NullString
	err := s.db.QueryRowContext(ctx, s.rebind("SELECT record_json FROM sessions WHERE id = ?"), id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("reading session %s from %s: %w", id, s.name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading session %s from %s: %w", id, s.name, err)
	}
	if !data.Valid {
		return nil, fmt.Errorf("reading session %s from %s: %w; only its metrics are stored", id, s.name, ErrNoRecord)
	}
	rec, err := refactor.DecodeRecord([]byte(data.String), id)
	if err != nil {
		return nil, fmt.Errorf("reading session %s from %s: %w", id, s.name, err)
	}
	return rec, nil
}
