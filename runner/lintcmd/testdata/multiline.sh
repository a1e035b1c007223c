#!/bin/sh
# multiline.sh FILE: prints findings that span several lines, ended by a
# blank line.
cat <<END
$1:4:2: error
    first part
    second part

$1:2:1: warning
    only part

END
