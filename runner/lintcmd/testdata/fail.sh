#!/bin/sh
# fail.sh: a linter that breaks: prints a finding-like line, complains on
# stderr and exits 3.
printf '%s:1:1: warning: half done [X1]\n' "${1:--}"
echo "fatal: cannot read config .fakelintrc" >&2
exit 3
