// Package interp resolves the interpreters and tools fixloop starts by name
// (python3, java, javac, pylint, a judge's or a command linter's program) to
// the executables they really run, once per configuration, so that a
// version manager's shim does not run again for every judge case and every
// linter run.
//
// On many machines the python3 first on PATH is not Python but a shim: a
// bash script of pyenv (~/.pyenv/shims/python3), asdf, jenv or rbenv that
// works out which installed version to run and then executes it. A shim
// costs a shell and the manager's own scripts, hundreds of milliseconds on
// a busy machine, and a judged program's time limit counted them. Resolve
// asks once instead:
//
//   - A Python interpreter (python, python3, python3.11) says itself which
//     executable it is: python3 -I -c 'import sys; print(sys.executable)'
//     prints the real binary through any shim (pyenv's
//     /root/.pyenv/versions/3.11.7/bin/python3, a virtual environment's
//     python), with sys.prefix and sys.base_prefix, whose lib directories
//     (the standard library, site-packages) the sandbox is told to show.
//   - java and javac: the chain of symbolic links is followed
//     (/usr/bin/java, /etc/alternatives/java, the JDK's bin/java); a shim
//     is asked for java.home (java -XshowSettings:properties -version) and
//     the JDK's own bin/java or bin/javac is used. The JDK's home is shown.
//   - Any other shim (a pylint that pyenv installed): the manager the shim
//     executes ("exec .../pyenv exec ...", as pyenv, rbenv, jenv and asdf
//     write them) is asked with `MANAGER which NAME`.
//   - Anything else runs as found on PATH: following a symbolic link could
//     change what a program does (clang++ is a link to clang, which then
//     compiles C; ccache and busybox go by the name they are called by), so
//     only the directory the link leads to is shown.
//
// A shim is an executable script ("#!") in a directory named "shims". A
// path with a slash (a configured interpreter, such as judge.run naming
// /usr/bin/python3.12) is used as given: the configured interpreter wins.
// Resolution never fails a run: when a probe fails, or its answer is no
// executable file, the program found on PATH is used and the reason is
// logged at debug level. Only a name that is not on PATH at all is an
// error.
//
// The probes run confined (sandbox.ConfineTool), in the directory the
// program is for (the judged file's, the linted file's, the project's):
// the shim reads the version files there (a project's .python-version or
// .tool-versions, which a repository controls and which asdf lets name
// any directory as a "path:" version), so that what it selects runs only
// inside the sandbox, as it did when the shim ran there itself.
//
// The answers are kept in one process-wide cache (an LRU of a few hundred
// entries): facts about the machine, keyed by everything they depend on,
// as sandbox.Probe keeps what the sandbox can do. The key is the program
// found on PATH, PATH itself and the version managers' variables, and for
// a shim the version files that decide what it selects (every
// .python-version, .tool-versions and .java-version from the directory up
// to the root, and the manager's global version file, by name, size and
// modification time). So `pyenv local 3.12` in a project, or `pyenv global`,
// takes effect at the next run, a project without version files shares
// the answer of every other, and nothing else makes a shim run twice. An
// answer whose executable has gone (an uninstalled version) is resolved
// again.
package interp
