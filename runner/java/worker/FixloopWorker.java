// FixloopWorker runs javac, checkstyle and PMD in one long-lived JVM for
// fixloop's warm Java linter (runner/java, warm.go).
//
// Protocol: messages on stdin and stdout are frames: a 4-byte big-endian
// count of fields, then each field as a 4-byte big-endian length and that
// many bytes (UTF-8 text, or any bytes). So any bytes pass.
//
//   - The worker's first frame is ["ready", java.version].
//   - A request is [id, tool, dir, arg...] with tool javac, checkstyle or
//     pmd; the arguments are the tool's command line arguments.
//   - Its response is [id, status, stdout-head, stdout-tail, stdout-total,
//     stderr-head, stderr-tail, stderr-total, rss-KiB, error]: the tool's
//     exit status and what it printed, kept as fixloop's LimitedBuffer
//     keeps a stream (--limit bytes, half from the start, half from the
//     end, and the count), the JVM's resident memory after the run, and
//     "" or a failure of the worker itself.
//
// Requests run concurrently, each on its own thread; responses come in
// the order they finish. System.out and System.err are replaced, for the
// whole JVM, by streams that write into the buffers of the request whose
// thread (or a thread it started) prints, and nowhere otherwise: nothing a
// tool prints reaches the protocol's stdout.
//
// checkstyle and PMD run in class loaders of their own (their jars and
// this worker's adapter class, over the platform class loader), named by
// the arguments: --checkstyle PATH:PATH... --pmd PATH:PATH..., the
// adapter's class directory first; javac is the JDK's, in process.
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class FixloopWorker {
    /** maxField bounds a request's field. */
    private static final int MAX_FIELD = 64 << 20;
    /** limit is what a tool's run keeps of stdout and of stderr (--limit). */
    static int limit = 1 << 20;

    /** The buffers of the request a thread serves. */
    static final InheritableThreadLocal<Capture> CAPTURE = new InheritableThreadLocal<>();

    /** Capture is what one tool run printed. */
    static final class Capture {
        final Bounded out = new Bounded();
        final Bounded err = new Bounded();
    }

    /**
     * Bounded keeps what fixloop's LimitedBuffer keeps of a stream: its first
     * limit/2 bytes and its last limit - limit/2, and counts them all.
     */
    static final class Bounded extends OutputStream {
        private final ByteArrayOutputStream head = new ByteArrayOutputStream();
        private byte[] tail = new byte[0];
        private long total;

        @Override
        public synchronized void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            total += len;
            int headMax = limit / 2;
            int tailMax = limit - headMax;
            int k = Math.min(headMax - head.size(), len);
            if (k > 0) {
                head.write(b, off, k);
                off += k;
                len -= k;
            }
            if (len == 0 || tailMax == 0) {
                return;
            }
            int keep = Math.min(tailMax, tail.length + len);
            byte[] t = new byte[keep];
            int fromNew = Math.min(len, keep);
            int fromOld = keep - fromNew;
            System.arraycopy(tail, tail.length - fromOld, t, 0, fromOld);
            System.arraycopy(b, off + len - fromNew, t, fromOld, fromNew);
            tail = t;
        }

        synchronized byte[] head() {
            return head.toByteArray();
        }

        synchronized byte[] tail() {
            return tail.clone();
        }

        synchronized long total() {
            return total;
        }
    }

    /** Redirect sends System.out or System.err to the current capture. */
    static final class Redirect extends OutputStream {
        private final boolean err;

        Redirect(boolean err) {
            this.err = err;
        }

        private OutputStream target() {
            Capture c = CAPTURE.get();
            if (c == null) {
                return null;
            }
            return err ? c.err : c.out;
        }

        @Override
        public void write(int b) {
            OutputStream t = target();
            if (t != null) {
                try {
                    t.write(b);
                } catch (IOException e) {
                    // a byte array stream does not fail
                }
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            OutputStream t = target();
            if (t != null) {
                try {
                    t.write(b, off, len);
                } catch (IOException e) {
                    // a byte array stream does not fail
                }
            }
        }
    }

    private final DataOutputStream proto;
    private final Map<String, String[]> toolPaths = new HashMap<>();
    private final Map<String, Method> adapters = new HashMap<>();

    private FixloopWorker(DataOutputStream proto) {
        this.proto = proto;
    }

    public static void main(String[] args) throws Exception {
        DataOutputStream proto = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
        Charset cs = Charset.defaultCharset();
        System.setOut(new PrintStream(new Redirect(false), true, cs.name()));
        System.setErr(new PrintStream(new Redirect(true), true, cs.name()));
        System.setIn(new java.io.ByteArrayInputStream(new byte[0]));
        FixloopWorker w = new FixloopWorker(proto);
        for (int i = 0; i + 1 < args.length; i += 2) {
            String paths = args[i + 1];
            if (args[i].equals("--limit")) {
                limit = Integer.parseInt(paths);
                continue;
            }
            String[] list = paths.isEmpty() ? new String[0] : paths.split(File.pathSeparator);
            w.toolPaths.put(args[i].replaceFirst("^--", ""), list);
        }
        w.send(new String[] {"ready", System.getProperty("java.version")});
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fixloop-request");
            t.setDaemon(true);
            return t;
        });
        while (true) {
            byte[][] req;
            try {
                req = read(in);
            } catch (EOFException e) {
                break;
            }
            byte[][] r = req;
            pool.execute(() -> w.serve(r));
        }
        // stdin ended: fixloop stops the worker. Let the running requests
        // answer, then exit (System.exit, so that a class-data archive asked
        // for is written).
        pool.shutdown();
        pool.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        proto.flush();
        System.exit(0);
    }

    private static byte[][] read(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 100000) {
            throw new IOException("bad frame: " + n + " fields");
        }
        byte[][] fields = new byte[n][];
        for (int i = 0; i < n; i++) {
            int len = in.readInt();
            if (len < 0 || len > MAX_FIELD) {
                throw new IOException("bad field length " + len);
            }
            fields[i] = new byte[len];
            in.readFully(fields[i]);
        }
        return fields;
    }

    private void send(Object[] fields) {
        synchronized (proto) {
            try {
                proto.writeInt(fields.length);
                for (Object f : fields) {
                    byte[] b = f instanceof byte[] ? (byte[]) f : String.valueOf(f).getBytes(StandardCharsets.UTF_8);
                    proto.writeInt(b.length);
                    proto.write(b);
                }
                proto.flush();
            } catch (IOException e) {
                Runtime.getRuntime().halt(3); // fixloop is gone
            }
        }
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private void serve(byte[][] req) {
        String id = req.length > 0 ? str(req[0]) : "0";
        Capture c = new Capture();
        CAPTURE.set(c);
        int status = -1;
        String error = "";
        try {
            if (req.length < 3) {
                throw new IllegalArgumentException("a request needs an id, a tool and a directory");
            }
            String tool = str(req[1]);
            String[] args = new String[req.length - 3];
            for (int i = 3; i < req.length; i++) {
                args[i - 3] = str(req[i]);
            }
            status = run(tool, args, c);
        } catch (Throwable t) {
            StringBuilder sb = new StringBuilder(t.toString());
            for (Throwable cause = t.getCause(); cause != null && sb.length() < 2000; cause = cause.getCause()) {
                sb.append(" caused by ").append(cause);
            }
            error = sb.toString();
        } finally {
            CAPTURE.remove();
        }
        send(new Object[] {id, Integer.toString(status), c.out.head(), c.out.tail(), Long.toString(c.out.total()),
            c.err.head(), c.err.tail(), Long.toString(c.err.total()), Long.toString(rss()), error});
    }

    private int run(String tool, String[] args, Capture c) throws Throwable {
        switch (tool) {
        case "javac": {
            // javac prints its diagnostics on stderr, the cold run's
            // combined output, in the platform's encoding.
            PrintWriter pw = new PrintWriter(new OutputStreamWriter(c.out, Charset.defaultCharset()), true);
            int status = com.sun.tools.javac.Main.compile(args, pw);
            pw.flush();
            return status;
        }
        case "checkstyle":
        case "pmd": {
            Method m = adapter(tool);
            Thread cur = Thread.currentThread();
            ClassLoader old = cur.getContextClassLoader();
            cur.setContextClassLoader(m.getDeclaringClass().getClassLoader());
            PrintStream out = new PrintStream(c.out, true, "UTF-8");
            PrintStream err = new PrintStream(c.err, true, Charset.defaultCharset().name());
            try {
                Object r = m.invoke(null, args, out, err);
                return (Integer) r;
            } catch (InvocationTargetException e) {
                // What the tool's own JVM does with a throwable out of
                // main (a StackOverflowError on a deeply nested file).
                err.print("Exception in thread \"main\" ");
                e.getCause().printStackTrace(err);
                return 1;
            } finally {
                cur.setContextClassLoader(old);
                out.flush();
                err.flush();
            }
        }
        default:
            throw new IllegalArgumentException("unknown tool " + tool);
        }
    }

    private synchronized Method adapter(String tool) throws Exception {
        Method m = adapters.get(tool);
        if (m != null) {
            return m;
        }
        String[] paths = toolPaths.get(tool);
        if (paths == null) {
            throw new IllegalStateException(tool + " is not configured in this worker");
        }
        List<URL> urls = new ArrayList<>();
        for (String p : paths) {
            urls.add(Paths.get(p).toUri().toURL());
        }
        ClassLoader loader = new URLClassLoader(tool + "-loader", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        String cls = tool.equals("pmd") ? "FixloopPMD" : "FixloopCheckstyle";
        Thread cur = Thread.currentThread();
        ClassLoader old = cur.getContextClassLoader();
        cur.setContextClassLoader(loader);
        try {
            m = Class.forName(cls, true, loader).getMethod("run", String[].class, PrintStream.class, PrintStream.class);
        } finally {
            cur.setContextClassLoader(old);
        }
        adapters.put(tool, m);
        return m;
    }

    /** rss is the JVM's resident memory in KiB (VmRSS), or 0. */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not on Linux
        }
        return 0;
    }
}
