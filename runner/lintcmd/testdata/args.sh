#!/bin/sh
# args.sh FILE DIR ROOT NAME: reports its arguments, its working directory
# and the first line of its stdin as one finding about FILE.
read -r first || true
printf '%s:1:1: info: file=%s dir=%s root=%s name=%s pwd=%s stdin=%s\n' "$1" "$1" "$2" "$3" "$4" "$(pwd -P)" "$first"
