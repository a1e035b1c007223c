#!/usr/bin/env bash
# Runs a command on a busy machine: starts CPU hogs (busy loops, two per core
# by default), runs the command beside them, stops the hogs and exits with
# the command's status. The tests must hold on a loaded machine (issue 23);
# .ci/run runs the timing-sensitive packages once under it.
#
#   bench/busy.sh [-n HOGS_PER_CORE] COMMAND...
#   bench/busy.sh go test -count=1 ./runner/golang/gotest/
#   bench/busy.sh -n 4 go test -count=1 -run TestEval ./cli/
#
# The command runs in the current directory, with the caller's standard
# input, output and error. Every hog is bounded three ways, so that none is
# left behind:
#   - this script kills every hog when it exits (normally, on an error, or
#     on INT, TERM or HUP, which it first passes on to the command and then
#     waits for it);
#   - each hog checks every few milliseconds that this script is still alive
#     and ends when it is not (this script was killed with SIGKILL);
#   - each hog ends after BUSY_MAX_SECONDS (default 10800, three hours).
# The hogs run at the command's priority: they compete for the CPUs on
# equal terms; they use no memory to speak of and no disk.
set -uo pipefail

usage() {
  echo "usage: bench/busy.sh [-n HOGS_PER_CORE] COMMAND..." >&2
  exit 2
}

per_core=2
while [ $# -gt 0 ]; do
  case "$1" in
  -n)
    [ $# -ge 2 ] || usage
    per_core="$2"
    shift 2
    ;;
  -n*)
    per_core="${1#-n}"
    shift
    ;;
  --)
    shift
    break
    ;;
  -h | --help) usage ;;
  *) break ;;
  esac
done
[ $# -gt 0 ] || usage
case "$per_core" in '' | *[!0-9]*) echo "busy.sh: -n wants a whole number, not $per_core" >&2; exit 2 ;; esac
max="${BUSY_MAX_SECONDS:-10800}"
case "$max" in '' | *[!0-9]* | 0) echo "busy.sh: BUSY_MAX_SECONDS wants a positive whole number, not $max" >&2; exit 2 ;; esac

cores=$(nproc)
hogs=$((per_core * cores))
owner=$$

# One hog: a busy loop in bash (user CPU time, nothing else), which checks
# after every 20,000 turns (a few milliseconds) whether busy.sh still runs
# and whether its time is up. $0 names it in ps: fixloop-busy-hog.
# shellcheck disable=SC2016 # expanded by the hog's shell
hog='while kill -0 "$1" 2>/dev/null && [ "$SECONDS" -lt "$2" ]; do for ((i = 0; i < 20000; i++)); do :; done; done'

pids=()
stop_hogs() {
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  pids=()
  echo "busy.sh: stopped the $hogs hogs" >&2
}
trap stop_hogs EXIT

# Each hog in a session of its own (setsid; a background job of a script
# without job control is no group leader, so setsid does not fork and $!
# is the hog): where the kernel groups tasks by session for the scheduler
# (sched_autogroup_enabled), hogs in one session would get one session's
# share of the CPUs all together, not one task's each as other programs'
# work does. The terminal's ^C does not reach them; stop_hogs does.
for ((n = 0; n < hogs; n++)); do
  setsid bash -c "$hog" fixloop-busy-hog "$owner" "$max" </dev/null &
  pids+=($!)
done
[ "$hogs" -gt 0 ] && echo "busy.sh: $hogs hogs ($per_core per core, $cores cores, each its own session) beside: $*" >&2

# The command in the background, so that a signal to this script runs its
# trap at once; env --default-signal undoes the SIGINT and SIGQUIT a
# script's background job would ignore, so the command still sees ^C.
env --default-signal=INT,QUIT -- "$@" &
cmd=$!
got_signal=
forward() {
  got_signal="$1"
  kill "-$1" "$cmd" 2>/dev/null
}
trap 'forward INT' INT
trap 'forward TERM' TERM
trap 'forward HUP' HUP

# wait returns early (above 128) when a trapped signal arrives; wait again
# until the command itself has ended.
while :; do
  wait "$cmd"
  status=$?
  if [ "$status" -le 128 ] || ! kill -0 "$cmd" 2>/dev/null; then
    break
  fi
done
if [ -n "$got_signal" ]; then
  echo "busy.sh: got SIG$got_signal, passed it on; the command exited with status $status" >&2
fi
stop_hogs
exit "$status"
