// Package python checks Python files and runs their tests for fixloop.
//
// # Linting
//
// A Linter checks one file (the overlay's text when the file is open and
// unsaved, else the file on disk) with:
//
//   - Python's own compiler, for syntax errors: python3 (the first on PATH,
//     which is the interpreter the user runs) compiles the text read from
//     stdin. A syntax error becomes one alert with Source "compiler".
//     When there is one, the linters' copies of it (pylint E0001
//     syntax-error, flake8 E999, pyright's rule-less errors) are dropped.
//   - pylint (--from-stdin, run in the file's directory so sibling imports
//     and the project's pylint configuration are found),
//   - flake8 (reading stdin, also from the file's directory),
//   - pyright, when selected: pyright cannot read stdin, so the text is
//     written to a file of the same name in a temporary directory and
//     pyright runs from the file's directory, which makes that directory
//     the execution root against which sibling imports resolve.
//
// pylint and flake8 run warm by default (LinterOptions.Tools, the
// configuration key python.tools): one long-lived worker process, started
// confined like the tools and shared by every Linter, runs their Python
// APIs on the text with the same arguments and returns what the command
// line tools would have printed (see warm.go and warm_worker.py for its
// restart rules and what it resets between checks). ToolsCold starts the
// command line tools for every check; they also run where the worker cannot
// start.
//
// pyright runs warm too (pyrightls.go): a long-lived pyright-langserver
// --stdio of the installation the cold run would start (the npm package
// installs it beside pyright), one per directory, execution root,
// sandbox view and configuration files' stamps, at most two, confined like
// the cold run and started from the file's directory. fixloop is its LSP
// client: initialize names as workspace root the directory the command
// line takes as execution root (the nearest pyrightconfig.json, else
// pyproject.toml, from the file's directory up, else that directory: the
// language server itself looks in its root only), and answers
// workspace/configuration with the command line's defaults (standard
// type checking mode, automatic search paths, library code for types,
// diagnostics of open files only); the interpreter is found as the command
// line finds it. A check sends the text with didOpen (a new version each
// time), waits for the publishDiagnostics of that version (with one open
// document, pyright's first publication of it follows the check of the
// whole file) and closes the document. The client declares no diagnostic
// tags, so pyright sends none of the hints the command line leaves out
// (unused, unreachable, deprecated code); severities 1 to 3 are the
// report's error, warning and information, the code is the rule, and the
// message, multi-line ones included, is the same text. pyright watches no
// file for a client: before each check fixloop stamps the Python
// sources, stubs, configuration files and directories under the root and
// sends the created, changed and deleted ones (didChangeWatchedFiles); a
// changed configuration file starts another server (pyright rereads its
// configuration only later). The cold run checks a copy of the text in a
// temporary directory beside links to the siblings; the server checks
// the text as the file itself: the same imports resolve, except that a
// module importing the checked file back sees the text, not the file on
// disk. pyright runs cold instead, never differently, where the server
// cannot start, where the text is not UTF-8 (LSP carries Unicode), where
// it nests brackets 100 deep (pyright's parser may then exhaust Node.js's
// stack, at a depth that differs between the two processes), and where
// the root holds more than 5000 files and directories (too many to stamp
// before each check). A server that does not publish within the
// tool timeout is killed (the check gets a note), one that dies or stops
// is replaced, and one whose processes' resident memory passes 300 MB
// after a check is retired. TestPyrightWarmMatchesColdOnCorpus and its
// siblings compare every field of the alerts with the cold run's.
//
// The selected linters run concurrently. Nothing is ever written into the
// user's tree. A linter that is not installed contributes one "fixloop"
// note naming it and how to install it (see tool.Note); the others still
// run. Sibling modules are read from disk by the linters, not from the
// overlay.
//
// A linter that breaks also contributes one note instead of its alerts,
// saying how it ended and quoting a few clipped lines of its stderr: a
// crash (a signal, or an exit status it does not use), a report that
// cannot be read, or more than 32 MiB of output. An empty report means
// "nothing found" only when the linter says so: pylint prints "[]" and an
// empty stdout is accepted with exit status 0 only; flake8's exit status 1
// says it found something, so it must come with a finding line; pyright
// always prints a JSON report.
//
// Column numbers: Python's ast gives UTF-8 byte offsets, so pylint's
// node-based messages, pyflakes (flake8 F*), mccabe and flake8-bugbear count
// bytes; pycodestyle (flake8 E/W) and pylint's token-based messages count
// characters; SyntaxError offsets count characters; pyright counts UTF-16
// code units. Each alert's Start and End are converted accordingly.
//
// Categories and severities are documented on Category and in
// CATEGORIES.md.
//
// # Pylint's message categories
//
// LinterOptions.PylintCategories (the configuration key
// python.pylintCategories) restricts pylint to some of its message
// categories. Nil runs pylint with its defaults and the project's
// configuration, as without the option. A list of names among
// PylintCategories() becomes --disable=all --enable=<letters and ids>
// (see pylintSelection): convention C, refactor R, warning W, error E,
// info I, and performance, which is not a pylint category but the message
// ids CATEGORIES.md puts in Performance (C0201 ... R1736 and the logging
// warnings W1201 W1202 W1203). Fatal messages (F: pylint could not analyse
// the file) are always enabled. An empty list is refused by NewLinter (and
// by the configuration) because it would hide every message; an unknown
// name too. LintEvalPylintCategories() is the LintEval paper's choice,
// [error, performance, refactor, convention]: E, F, R, C and the three
// logging warnings, without pylint's other warnings.
//
// These options are given on pylint's command line, which takes precedence
// over the project's .pylintrc, pylintrc, setup.cfg, tox.ini or
// pyproject.toml: their disable= and enable= lists no longer count, while
// their other settings (naming styles, plugins, limits) still do. Inline
// "# pylint: disable=..." comments in the file still apply.
//
// # Testing
//
// A Tester runs pytest on the project that holds a file (see ProjectRoot)
// in a temporary copy of the project with the overlay applied, under
// runner/sandbox limits, and reads pytest's JUnit XML report.
//
// Which Python runs the tests: the python3 first on PATH is often a pyenv or
// virtualenv interpreter (on fixloop's reference machine it is pyenv's
// /root/.pyenv/shims/python3, Python 3.11.7) that cannot import the
// packages Debian installs for /usr/bin/python3, pytest among them. So the
// Tester runs the pytest-3 executable (Debian's python3-pytest; its
// #! line names /usr/bin/python3), or a pytest executable, found on PATH,
// and falls back to `python3 -m pytest` only when neither exists and that
// python3 can import pytest. Diagnose explains which interpreter is used
// and why. The same applies to pylint and flake8: Debian's executables run
// on Debian's Python and see only the modules installed for it.
//
// Every tool is resolved before it runs (tool.Tool.Resolve, runner/interp),
// from the linted file's directory or the project's root: when the python3
// first on PATH is a version manager's shim (pyenv's), the syntax check,
// `python3 -m pytest` and the probe for pytest run the interpreter the shim
// would start (its sys.executable, asked once per configuration and
// cached), not the shim, which costs hundreds of milliseconds on a busy
// machine; a pylint, flake8 or pytest that pyenv installed is resolved with
// `pyenv which`. The sandbox is shown the interpreter's library
// directories.
package python
