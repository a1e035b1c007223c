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
