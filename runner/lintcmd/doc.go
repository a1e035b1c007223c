// Package lintcmd runs command-line linters that users configure
// themselves, in the manner of efm-langserver: fixloop runs the command on
// the file being edited, reads its output with Vim errorformat patterns or
// a JSON mapping, and shows what it reports as diagnostics next to the
// built-in linters'.
//
// The command runs confined (sandbox.ConfineReader, sandbox.ConfineTool)
// where bubblewrap works: the project and the file's directory read-only
// in every input mode, a private /tmp (and, with input tempfile, its
// temporary directory) writable, the allowed environment plus the spec's
// env, no network. It
// runs on candidates' text too, so it must not be able to read what the
// candidate names.
//
// # Configuration
//
// Each entry of the `linters:` list in .fixloop.yaml becomes a Spec. An
// example with three linters:
//
//	linters:
//	  - name: shellcheck
//	    command: [shellcheck, -f, gcc, "-"]
//	    input: stdin
//	    extensions: [.sh, .bash]
//	    errorformat:
//	      - "%f:%l:%c: %trror: %m"
//	      - "%f:%l:%c: %tarning: %m"
//	      - "%f:%l:%c: %tote: %m"
//	    code_pattern: '\s*\[(SC\d+)\]$'
//	    column_unit: runes
//	    category: Error-prone
//	    package: Debian package shellcheck
//
//	  - name: eslint
//	    command: [node_modules/.bin/eslint, -f, json, --stdin, --stdin-filename, "${file}"]
//	    input: stdin
//	    extensions: [.js, .jsx, .mjs]
//	    json:
//	      items: "0.messages"
//	      line: line
//	      column: column
//	      end_line: endLine
//	      end_column: endColumn
//	      code: ruleId
//	      message: message
//	      severity: severity
//	      severity_map: {"2": error, "1": warning}
//	    column_unit: utf16
//	    category: Style
//	    debounce: 300ms
//	    package: npm package eslint
//
//	  - name: flake8
//	    command: [flake8, --stdin-display-name, "${file}", "-"]
//	    input: stdin
//	    extensions: [.py]
//	    errorformat: ["%f:%l:%c: %m"]
//	    code_pattern: '^([A-Z]+[0-9]+)\s+'
//	    column_unit: runes
//	    category_map: {F: Error-prone, E: Style, W: Style, C9: Refactor}
//	    package: Debian package flake8
//
// # Fields
//
//	name          the diagnostics' source, e.g. "shellcheck" (required)
//	command       the argv (required); every argument may hold the
//	              placeholders below
//	extensions    which files it checks: ".sh" matches the end of the file
//	              name, ignoring case; a name without a leading dot
//	              ("Dockerfile") matches the whole base name (required)
//	input         how the command gets the text:
//	                stdin     on standard input, running in the file's
//	                          directory (the default when command has no
//	                          ${file})
//	                tempfile  the text is written to a new temporary
//	                          directory under the file's name; the command
//	                          runs there (the default when command has
//	                          ${file})
//	                file      the command reads the file itself, running in
//	                          its directory; only when the editor holds no
//	                          unsaved changes, else fixloop uses tempfile
//	                fixloop never writes into your project, and
//	                (confined) the command cannot either: in every
//	                mode it sees the project read-only.
//	errorformat   Vim errorformat patterns (see ":help errorformat"): %f file,
//	              %l line, %c column, %e end line, %k end column, %m message,
//	              %t type (e/E error, w/W warning, i/I information, n/N hint;
//	              anything else, or none, is a warning), %n a number used as
//	              the code, %E %W %I %C %Z multi-line messages, %-G lines to
//	              ignore, ... Lines no pattern matches are skipped; but
//	              when the exit code is not 0 and no line matches, the
//	              file gets one "fixloop" warning quoting the output.
//	json          instead of errorformat: the output is JSON, or JSON Lines
//	              (one object per line). Paths use gjson syntax
//	              (https://github.com/tidwall/gjson/blob/master/SYNTAX.md):
//	                items          path of the array of findings ("" = the
//	                               output itself; with JSON Lines, looked up
//	                               in every line, "" = every line is one)
//	                file, line, column, end_line, end_column, code,
//	                message, severity
//	                               paths inside one finding; message is
//	                               required, findings without one are
//	                               skipped, a finding without a file is
//	                               about the checked file
//	                severity_map   tool severity (text or number) to error,
//	                               warning, information or hint; unmapped
//	                               words are read as such (info, note,
//	                               fatal, ...), anything else is a warning
//	                column_offset  1 if the tool counts columns from 0
//	                line_offset    1 if the tool counts lines from 0
//	code_pattern  a regular expression that finds the rule id in a
//	              message when the format gave none: its first group (or the
//	              whole match) is the code and the match leaves the message
//	output        stdout (default), stderr, or both (stdout, then stderr)
//	exit_codes    exit codes meaning "ran fine", with or without findings;
//	              default [0, 1]. Another code, a crash or the timeout shows
//	              one "fixloop" warning on line 1 with the end of the tool's
//	              stderr, instead of the tool's findings. Of each output
//	              stream the first and the last 2 MiB are read: a longer
//	              one adds a warning saying so (with json, replaces the
//	              findings by it).
//	timeout       longest run (default 30s)
//	debounce      extra wait after an edit before the command runs; a newer
//	              edit cancels the wait, so a slow tool runs once you pause
//	on_save       run only on open and save; while you type, the result of
//	              the last run is shown as it was (positions are not moved
//	              to follow the edits)
//	category      category of every diagnostic: Error-prone, Performance,
//	              Refactor, Style or Other (default Other)
//	category_map  code prefix to category; the longest matching prefix wins
//	              over category
//	column_unit   what the tool's columns count: bytes (default), runes
//	              (characters) or utf16; see ParseColumnUnit
//	package       what provides the command, shown when it is missing, e.g.
//	              "Debian package shellcheck"
//	env           extra environment entries, ["KEY=value"]
//
// Placeholders:
//
//	${file}  the file as the command should see it: its real path, or the
//	         temporary copy with input tempfile
//	${dir}   the directory of ${file}, where the command runs
//	${root}  the workspace root (Spec.Root), else the file's directory
//	${name}  the file's base name
//
// The command is looked up on PATH; a command with a slash that is not
// absolute ("node_modules/.bin/eslint") is taken from the workspace root
// (or the file's directory). A bare name is resolved from the file's
// directory (runner/interp): a version manager's shim (a mypy or python3
// of pyenv's) is replaced by the executable it would start, asked once per
// configuration, so that the shim does not run on every lint; a path is
// used as given. Placeholders in the command itself name the
// real file. When it cannot be found, the file gets one "fixloop" warning
// saying so and naming the package.
//
// # Findings
//
// Only findings about the checked file are kept: the tool may name it by
// its real path, the temporary copy, a path relative to the working
// directory, its base name, "-", "<stdin>", or not at all. Positions are
// 1-based lines and columns in column_unit; a finding with a column but no
// end covers the word there, one without a column covers its line, one
// without a line is shown on line 1. Ends name the first character after
// the range. The alerts' offsets, lines and byte columns refer to the text
// that was checked: the editor's unsaved text when there is some.
package lintcmd
