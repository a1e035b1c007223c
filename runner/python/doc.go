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
