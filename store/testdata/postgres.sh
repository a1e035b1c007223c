#!/bin/sh
# postgres.sh installs and starts a local PostgreSQL server on Debian (as
# root), creates the database fixloop_test, and prints the DSN the store's
# PostgreSQL tests read from FIXLOOP_TEST_POSTGRES. Running it again is fine.
#
#   export FIXLOOP_TEST_POSTGRES="$(sh store/testdata/postgres.sh)"
#   go test ./store/...
#
# Progress goes to stderr; only the DSN goes to stdout.
set -eu

log() { echo "postgres.sh: $*" >&2; }

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
	log "installing postgresql"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq postgresql >&2
fi

# The newest installed major version.
version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
log "using PostgreSQL $version"

if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q .; then
	log "creating cluster $version/main"
	pg_createcluster "$version" main >&2
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
	log "starting cluster $version/main"
	pg_ctlcluster "$version" main start >&2
fi

# Wait until the server accepts connections.
i=0
until su postgres -c "pg_isready -q -h /var/run/postgresql"; do
	i=$((i + 1))
	if [ "$i" -ge 30 ]; then
		log "the server did not come up"
		exit 1
	fi
	sleep 1
done

psql_su() { su postgres -c "psql -v ON_ERROR_STOP=1 -qAt -h /var/run/postgresql $*"; }

# The postgres role is already a superuser; root connects as it over the
# Unix socket (peer authentication maps only the OS user postgres, so give
# the role a password and use TCP on 127.0.0.1 for everyone else).
psql_su "-c \"ALTER ROLE postgres WITH PASSWORD 'fixloop'\"" >&2
if [ "$(psql_su "-c \"SELECT 1 FROM pg_database WHERE datname = 'fixloop_test'\"")" != "1" ]; then
	log "creating database fixloop_test"
	psql_su "-c \"CREATE DATABASE fixloop_test\"" >&2
fi

port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $3}')
echo "postgres://postgres:fixloop@127.0.0.1:${port}/fixloop_test?sslmode=disable"
