// Package sandbox runs code a model wrote (a candidate's tests, a judged
// program, its build) the way a judge runs a submission: in a directory of
// its own, under a time limit and a memory limit, and confined by
// bubblewrap so that a hostile candidate can neither harm the user's
// machine nor read its secrets.
//
// Threat model: the candidate is hostile (the model may be prompt-injected,
// or careless). It runs with the user's uid, as root when fixloop runs as
// root, and does whatever code can do: remount, delete, fork, map memory,
// connect, read files and /proc, ptrace.
//
// What is enforced on Linux where bubblewrap runs (Probe says; `fixloop
// check --tools` prints it):
//
//   - A file system of its own: read-only binds of the system directories
//     (/usr, /bin, /lib*, /opt, /etc with every file and directory that is
//     not readable by everyone hidden: /etc/shadow, /etc/ssl/private, host
//     keys), the toolchains on PATH and in their variables (GOROOT, the Go
//     module cache, JAVA_HOME, ~/.pyenv, ~/.m2/repository), and of what the
//     caller names (Cmd.ReadOnly: the user's project beside its copy); the
//     work directory read-write; an empty tmpfs for $HOME (a toolchain
//     under it shown read-only), /tmp and /dev/shm private tmpfs, a /proc
//     of its own pid namespace, a minimal /dev, no /run and no /sys but the
//     CPU list. Unix sockets outside it do not exist for the command.
//   - New user, pid, network, IPC, UTS and cgroup namespaces
//     (--unshare-all), the network reduced to its own loopback, every
//     capability dropped (so nothing can be remounted), a new session (no
//     terminal to inject into), and --die-with-parent: when the run ends,
//     everything in its pid namespace dies, setsid or not.
//   - Environment by allow-list (AllowedEnv): PATH, the locale, TZ, the
//     toolchains' own variables, HOME and TMPDIR, never a variable whose
//     name looks secret. The configured API key variable, whatever its
//     name, is not on the list.
//   - Limits from a cgroup made per run where fixloop may make one (cgroup
//     v2, or v1's pids and memory controllers as on many CI machines): a
//     process and thread cap (Limits.Processes, default 512), and a memory
//     cap that counts every page the run's processes use, shared and
//     anonymous mappings and tmpfs files included, with swap. The peak
//     memory of a run is its cgroup's (memory.peak or
//     memory.max_usage_in_bytes), never fixloop's own. What is left in the
//     cgroup is killed when the run ends. The data segment (RLIMIT_DATA) is
//     capped too, so that most allocations fail in the program's own
//     runtime (std::bad_alloc, MemoryError) before the kernel kills it.
//   - Time counted as judges count it (Limits.CPU): the CPU time of every
//     process of the run, read from its cgroup (cpuacct.usage on v1,
//     cpu.stat on v2) every 10 ms; past the limit the run is killed and
//     reported as CPUExceeded. So a verdict depends on the program, not on
//     what else the machine runs. A wall-clock limit (Limits.Time, by
//     default WallLimit: 3 × the CPU limit + 10 s) is the safety net for a
//     program that sleeps or waits; at either limit the process group and
//     the cgroup are killed. Result carries both times and both limits.
//   - Standard input (Cmd.Stdin) is an unlinked, read-only regular file,
//     as judges give a case's input: fstat(0) tells its size, and it can
//     be sought.
//
// Where no cgroup can be made (an unprivileged fixloop on cgroup v1, or
// without delegation), the process cap is RLIMIT_NPROC (the kernel counts
// every task of the user, so the user's tasks are added to the cap; root is
// not held to it) and the memory cap RLIMIT_DATA, which does not count
// shared mappings; the peak memory is then unknown (0). The CPU time is
// then read from /proc, the run's process tree followed through its
// children every 10 ms (each process's own time and its reaped
// children's), and the rusage of the reaped run when it ends; RLIMIT_CPU,
// a second above the limit, holds each process besides. A process that
// ends between two looks without being reaped by one of the tree is not
// counted. Where bubblewrap is
// missing or user namespaces are disabled, nothing but the limits applies:
// RequireConfinement then fails, and refactor sessions refuse to run a
// model's candidates unless the user chose `sandbox: none` (Unconfined).
//
// Not enforced: disk use inside the work directory and the private tmpfs
// (/tmp and /dev/shm are capped at the memory limit's size); what the read-only view shows can be read (the
// user's project beside the copy, the toolchains); ptrace of the processes
// inside the same sandbox.
//
// What a run leaves in its copy (reports, the copied sources) fixloop reads
// with ReadLeftover and GlobLeftovers, never through a symbolic link,
// never a FIFO or a device, and at most LeftoverLimit bytes of a file.
//
// Sweep removes what servers killed mid-run left behind: copies named with
// their owner's pid (TempPattern) and cgroups named the same way.
package sandbox
