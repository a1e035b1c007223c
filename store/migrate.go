package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A migration brings the schema from version-1 to version. Its statements
// run in one transaction, on SQLite and PostgreSQL alike.
type migration struct {
	version int
	stmts   []string
}

// migrations are applied in order and never edited once released: a new
// schema change is a new entry at the end.
var migrations = []migration{
	{version: 1, stmts: []string{
		`CREATE TABLE sessions (
			id            TEXT PRIMARY KEY,
			created       TEXT NOT NULL,
			workspace     TEXT NOT NULL,
			file          TEXT NOT NULL,
			language      TEXT NOT NULL,
			goal          TEXT NOT NULL,
			provider      TEXT NOT NULL,
			model         TEXT NOT NULL,
			k             INTEGER NOT NULL,
			solved_round  INTEGER NOT NULL,
			passed        INTEGER NOT NULL,
			alerts_before INTEGER NOT NULL,
			fixed         INTEGER NOT NULL,
			"new"         INTEGER NOT NULL,
			lines_edited  INTEGER NOT NULL,
			session_json  TEXT NOT NULL,
			record_json   TEXT,
			mode          TEXT NOT NULL,
			saved         TEXT NOT NULL
		)`,
		`CREATE INDEX sessions_created ON sessions (created, id)`,
		`CREATE INDEX sessions_workspace ON sessions (workspace, created)`,
	}},
	// fixloop eval: the run and the problem of each session it ran.
	{version: 2, stmts: []string{
		`ALTER TABLE sessions ADD COLUMN run TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE sessions ADD COLUMN problem TEXT NOT NULL DEFAULT ''`,
		`CREATE INDEX sessions_run ON sessions (run, problem)`,
	}},
}

// SchemaVersion is the newest schema version this package knows.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// migrate applies the migrations the database lacks. Concurrent openers
// are serialised: by an advisory lock on PostgreSQL and by the immediate
// write transaction on SQLite.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY,
		applied TEXT NOT NULL
	)`); err != nil {
		return fmt.Errorf("creating the schema_version table: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	defer tx.Rollback()
	if s.dialect == postgres {
		// 0x66697865 is "fixe": any constant shared by all fixloops.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(1718187109)`); err != nil {
			return fmt.Errorf("migrating: locking: %w", err)
		}
	}
	var current sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("migrating: reading the schema version: %w", err)
	}
	if int(current.Int64) > SchemaVersion() {
		return fmt.Errorf("the store has schema version %d; this fixloop knows up to %d: upgrade fixloop", current.Int64, SchemaVersion())
	}
	for _, m := range migrations {
		if int64(m.version) <= current.Int64 {
			continue
		}
		for _, q := range m.stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("migrating to schema version %d: %w", m.version, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO schema_version (version, applied) VALUES (?, ?)`),
			m.version, formatTime(time.Now())); err != nil {
			return fmt.Errorf("migrating to schema version %d: %w", m.version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	return nil
}
