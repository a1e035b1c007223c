#!/bin/sh
# jsonlines.sh FILE: prints one JSON object per line (JSON Lines), one of
# them about another file and one that is not a finding.
cat <<END
{"path": "$1", "pos": {"line": 1, "col": 1}, "level": "HIGH", "rule": "R1", "text": "first"}
{"path": "other.txt", "pos": {"line": 2, "col": 1}, "level": "LOW", "rule": "R2", "text": "elsewhere"}

{"path": "$1", "pos": {"line": 2, "col": 3}, "level": "low", "rule": "R2", "text": "second"}
{"summary": {"findings": 2}}
END
