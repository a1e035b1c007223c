#!/bin/sh
# eslint.sh FILE: prints findings in eslint's JSON form, but with 0-based
# columns.
cat <<END
[{"filePath": "$1", "messages": [
  {"ruleId": "no-unused-vars", "severity": 2, "message": "'x' is unused", "line": 2, "column": 0, "endLine": 2, "endColumn": 1},
  {"ruleId": "semi", "severity": 1, "message": "Missing semicolon", "line": 3, "column": 4},
  {"ruleId": null, "severity": 2, "message": "Parsing error", "line": 1, "column": 0},
  {"ruleId": "summary-only", "severity": 1, "line": 1}
], "errorCount": 2}]
END
