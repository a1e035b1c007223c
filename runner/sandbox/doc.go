// Package sandbox runs a command the way a judge runs a submission: in a
// directory of its own, under a time limit and a memory limit, with its whole
// process group killed on timeout or cancel, and, where the platform allows,
// without network and without write access outside its directory.
//
// What is enforced (Linux):
//
//   - Time: a wall-clock deadline (the process group is killed with SIGKILL).
//     No CPU-time rlimit: it counts every thread's time, so it would kill a
//     multi-threaded program (a JVM) before its wall-clock limit.
//   - Memory: RLIMIT_DATA, which Linux checks on every private writable
//     mapping (heap, mmap'd arenas, thread stacks). The program's own runtime
//     then reports the failed allocation (std::bad_alloc, MemoryError,
//     OutOfMemoryError, "runtime: out of memory"); such a failure, or a peak
//     resident set (ru_maxrss) at or above the limit, is MemoryExceeded.
//   - Network and writes: when `unshare --map-root-user --mount --net` works
//     (unprivileged user namespaces), the command runs in a new network
//     namespace whose only device is its own loopback (brought up with `ip`
//     when installed, so a test may serve and dial 127.0.0.1), an empty
//     tmpfs hides /run (the host's service sockets: docker, D-Bus), and
//     every mount but the work directory, /proc, /sys and /dev is remounted
//     read-only (TMPDIR then points into the work directory). The command
//     runs as root of its user namespace, so file permissions do not stop
//     it reading what it can see. Where unshare does not work, the command
//     runs without these and Capabilities says so.
//   - Processes: a pids cgroup caps processes and threads (Limits.Processes,
//     default 512) where fixloop may create one; what is left in it is
//     killed when the run ends.
//
// Confine gives the same confinement to a command another program starts
// (go test -exec starts each Go candidate's test binary).
//
// On other systems only the deadline and the process-group kill apply.
package sandbox
