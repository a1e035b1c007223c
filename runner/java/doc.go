// Package java checks Java files and runs their JUnit 5 tests.
//
// # Linting
//
// A Linter (NewLinter) checks one .java file with two tools, run
// concurrently:
//
//   - javac, for compile errors (Source "compiler", Severity error). The text
//     (the editor's unsaved text when the overlay has it) is copied into a
//     temporary source tree under its package's directories, and javac gets
//     -sourcepath with that tree first and the user's source root after it,
//     so references to sibling classes resolve from the user's files while
//     the copy of the edited file (and every other overlay file under the
//     source root) wins over the disk version. The source root is derived
//     from the package declaration: the file's directory minus one
//     directory per package segment (package com.x in src/com/x gives src).
//     A test file of the Maven layout (src/test/java) also sees
//     src/main/java, and the JUnit 5 console launcher jar is on the class
//     path when installed, so test files compile too. In a Maven project the
//     dependencies found in the local repository are on the class path and
//     the sibling modules' sources on the source path (see maven.go); when
//     some are missing and javac finds errors, one note names them. Only
//     errors in the checked file are reported; the caret line javac prints
//     under the source line gives the column.
//   - checkstyle -f xml with the sun (default) or google configuration
//     bundled in checkstyle, or a configuration file. Code is the check's
//     simple name without "Check" ("WhitespaceAround"), URL its page in the
//     checkstyle documentation, Category from Category. Checkstyle's
//     columns count characters after tab expansion (tabWidth, default 8, or
//     the configuration's tabWidth property) and are converted back to byte
//     offsets. Checkstyle severities error and warning become warnings,
//     info becomes information, ignore is dropped. A file that checkstyle
//     cannot parse yields no checkstyle alerts (javac reports the syntax
//     error). A package-info.java next to the file is copied along so that
//     JavadocPackage sees it.
//
// checkstyle runs as FixloopCheckstyle (worker/FixloopCheckstyle.java, on
// the jars Debian's checkstyle launcher names), which is checkstyle's
// command line on its Checker API with one change: a token's checks run in
// the configuration's order. checkstyle 8 keeps them in hash sets, so when
// two checks report the same message at the same place (WhitespaceAfter
// and WhitespaceAround: "'if' is not followed by whitespace.") the one it
// kept followed the JVM's identity hash codes and changed with its flags.
// Without that launcher, or a JDK to compile the adapter, the launcher
// itself runs.
//
// # Warm and cold
//
// LinterOptions.Tools chooses how the three tools run (setting
// java.tools). ToolsCold starts a JVM for each tool and check, with a
// class-data archive (cds.go). ToolsWarm, the default, runs them in one
// long-lived JVM per JDK, tools' jars and set of directories shown
// read-only (in practice: per project), kept in a WarmPool the toolset
// owns (at most 3; the least recently used is stopped for a fourth; one
// idle for 5 minutes stops). The worker (worker/FixloopWorker.java,
// embedded) is compiled at first use with the JDK's javac, confined, into
// jars cached under the user's cache directory
// (fixloop/java-worker/<class>-<hash of the source, the JDK and the jars
// it is compiled against>, renamed into place whole). It runs each tool
// on exactly the arguments of the cold run: javac through
// com.sun.tools.javac.Main.compile in process, checkstyle and PMD 7
// through FixloopCheckstyle and FixloopPMD (PmdAnalysis, the JSON
// renderer, no incremental cache) in class loaders of their own (their
// jars over the platform class loader, so their antlr versions never
// meet); each run builds the tool's state afresh (a new Checker, a new
// PmdAnalysis, a new javac context), so only loaded and compiled classes
// carry over. What a tool prints comes back bounded as the cold run's
// LimitedBuffer bounds it, with its exit status, and goes through the
// same parsers, so the alerts are the cold ones (TestWarmMatchesCold: the
// bundled examples and 200 generated files, every field of every alert).
// Requests are length-prefixed frames on the worker's stdin and stdout
// (any bytes pass); System.out and System.err are redirected into the
// buffers of the request whose thread prints, so nothing a tool prints
// reaches the protocol. The three tools of a check run concurrently in the
// worker.
//
// The worker is confined as the cold tools are (sandbox.ConfineTool): the
// system, the JDK, the tools' installations and what the cold tools are
// shown (the user's source roots, the class path, the Maven modules'
// sources, a checkstyle configuration, PMD ruleset files) read-only, a
// private /tmp, no network, and a scratch directory of its own, the one
// place it may write: a long-lived sandbox cannot gain bind mounts, so
// each check's temporary source tree is made inside it. A tool that passes
// the tool timeout kills the worker (a thread cannot be stopped) and
// becomes a note; the next check starts a new worker, as after a crash. A
// worker whose resident memory (VmRSS, after each run) passes 300 MB is
// retired after its running checks. A worker that cannot start (no JDK
// beside javac, the worker does not compile) leaves the tools cold. The
// first worker of a JDK and tools writes a class-data archive of what it
// loaded when it is stopped (its stdin closed: it answers its running
// calls and exits, or is killed after 10 s), as the cold tools do
// (cds.go); later workers start from it.
//
// Nothing is ever written into the user's tree: every tool runs on
// temporary copies. A missing tool (javac, checkstyle) or a tool that fails
// (a broken checkstyle configuration, a crash, unreadable output or more
// than 1 MiB of it) yields one tool.Note alert naming it and saying how it
// ended, next to the other tool's alerts. javac's empty output means
// "compiles" with exit status 0 and is a failure with any other;
// checkstyle always prints an XML report, so no report is a failure.
// Checkstyle results are cached by the checked text; javac results are
// not, since they depend on other files.
//
// # Testing
//
// A Tester (NewTester) runs a project's JUnit 5 tests. The project root is
// the nearest directory above the file that holds pom.xml, build.gradle,
// build.gradle.kts or .fixloop.yaml (the search stops at a directory holding
// .git), else the source root of the file's package. The root is copied
// with sandbox.Workdir (overlay applied); every .java file in the copy (main
// and test sources; target/, build/, out/ and bin/ directories next to a
// build file and hidden directories are skipped) is compiled in one javac
// run against the JUnit console launcher jar and the configured class path;
// compile errors make a BuildFailed report whose BuildErrors point at the
// user's files. The console launcher then runs every test class found in
// the compiled classes under sandbox.Run with the run's time limit (build
// included) and the memory limit (RLIMIT_DATA; the JVM gets -Xmx at three
// quarters of it so that a test that allocates too much fails with
// OutOfMemoryError). Its JUnit XML reports give the results; tests are
// named class.method ("example.StatsTest.maxFindsLargestNegative", the
// "()" JUnit adds to parameterless methods dropped), each failure is placed
// at the test's own frame in the stack trace, and its message keeps the
// exception and the stack frames outside JUnit and the JDK. On a timeout the
// console output (--details=verbose) gives the tests that finished and the
// one that was running, which fails with time_limit_exceeded. Reports of
// runs that did not time out are cached by the content of the copied tree.
//
// javac and java are resolved before they run (tool.Tool.Resolve,
// runner/interp): /usr/bin/java's links (/etc/alternatives) are followed to
// the JDK's own launchers, and a version manager's shim (jenv's) is asked
// once per configuration for java.home, so that no shim starts on every
// lint and test run; the sandbox is shown the JDK's home.
package java
