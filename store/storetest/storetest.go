// Package storetest gives tests their own empty PostgreSQL database on the
// server named by FIXLOOP_TEST_POSTGRES, so that test packages running at
// the same time do not share tables.
package storetest

import (
	"database/sql"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// PostgresDSN returns the DSN of the empty database fixloop_test_<name>,
// creating it on the test server if needed. Without FIXLOOP_TEST_POSTGRES
// the test is skipped, except in CI (CI=true), where it fails.
func PostgresDSN(t testing.TB, name string) string {
	t.Helper()
	base := os.Getenv("FIXLOOP_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FIXLOOP_TEST_POSTGRES is unset; CI must run the PostgreSQL tests: export FIXLOOP_TEST_POSTGRES=\"$(sh store/testdata/postgres.sh)\"")
		}
		t.Skip("FIXLOOP_TEST_POSTGRES is unset; run store/testdata/postgres.sh to get a server")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("FIXLOOP_TEST_POSTGRES: %v", err)
	}
	dbName := "fixloop_test_" + name
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// A new database each time: the store's tables, and River's job
	// queue, which fixloop eval keeps in the same database.
	if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + dbName + ` WITH (FORCE)`); err != nil {
		t.Fatalf("dropping the test database %s: %v", dbName, err)
	}
	if _, err := admin.Exec(`CREATE DATABASE ` + dbName); err != nil {
		t.Fatalf("creating the test database %s: %v", dbName, err)
	}
	u.Path = "/" + dbName
	dsn := u.String()
	return dsn
}
