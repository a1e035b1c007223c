#!/bin/sh
# sleep.sh PIDFILE: starts a child that sleeps, writes the child's pid to
# PIDFILE and waits for it, so that only killing the process group ends the
# run early.
sleep 30 >/dev/null 2>&1 &
echo $! >"$1"
wait
