#!/bin/sh
# fakelint.sh FILE [stdout|stderr|both]: a fake linter that prints gcc-style
# findings about FILE (and one about another file) without reading it.
# "stderr" prints everything on stderr; "both" prints errors on stderr and
# the rest on stdout. When FAKELINT_LOG is set, every run appends a line to
# that file, so tests can count runs.
file=$1
where=${2:-stdout}
if [ -n "$FAKELINT_LOG" ]; then
	echo "run $file" >>"$FAKELINT_LOG"
fi
errors() {
	printf '%s:1:1: error: bad start [E2]\n' "$file"
}
others() {
	printf 'this line is noise\n'
	printf '%s:3:5: warning: thing [X1]\n' "$file"
	printf '%s:2:1: info: look here [I3]\n' "$file"
	printf '%s:4:3: note: maybe [N4]\n' "$file"
	printf 'other.sh:2:1: warning: elsewhere [X9]\n'
}
case $where in
stderr) errors >&2; others >&2 ;;
both) errors >&2; others ;;
*) errors; others ;;
esac
exit 1
