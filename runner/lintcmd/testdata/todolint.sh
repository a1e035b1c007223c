#!/bin/sh
# todolint.sh [NAME]: reads the text on stdin and reports every line that
# holds TODO, at the column of TODO, under the file name NAME (default
# "<stdin>").
name=${1:-<stdin>}
awk -v name="$name" '{ i = index($0, "TODO"); if (i > 0) printf "%s:%d:%d: warning: TODO left\n", name, NR, i }'
