// FixloopCheckstyle runs checkstyle as its command line (Main) runs
// "-c CONFIG -f xml FILE...", on the Checker API: in FixloopWorker's JVM
// (run), and as a command of its own for the cold runs (main). It is
// compiled against checkstyle's jars and loaded in their class loader.
//
// One thing differs from Main: the checks of a token run in the order of
// the configuration. checkstyle 8 keeps them in HashSets, so their order
// comes from identity hash codes, and when two checks report the same
// message at the same place (WhitespaceAfter and WhitespaceAround on
// "'if' is not followed by whitespace.") the one that runs first is kept:
// which one changed with the JVM's flags, so the same file could get
// either. Ordered, it is always the one configured first.
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Locale;
import java.util.Properties;

import com.puppycrawl.tools.checkstyle.Checker;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader;
import com.puppycrawl.tools.checkstyle.ModuleFactory;
import com.puppycrawl.tools.checkstyle.PackageNamesLoader;
import com.puppycrawl.tools.checkstyle.PackageObjectFactory;
import com.puppycrawl.tools.checkstyle.PropertiesExpander;
import com.puppycrawl.tools.checkstyle.ThreadModeSettings;
import com.puppycrawl.tools.checkstyle.TreeWalker;
import com.puppycrawl.tools.checkstyle.XMLLogger;
import com.puppycrawl.tools.checkstyle.api.AutomaticBean;
import com.puppycrawl.tools.checkstyle.api.CheckstyleException;
import com.puppycrawl.tools.checkstyle.api.Configuration;
import com.puppycrawl.tools.checkstyle.api.RootModule;

public final class FixloopCheckstyle {
    private FixloopCheckstyle() {
    }

    /** Exit statuses of checkstyle's Main: a CheckstyleException, bad input. */
    private static final int EXIT_EXCEPTION = 254;
    private static final int EXIT_USAGE = 255;

    /** main runs checkstyle as a command: fixloop's cold design. */
    public static void main(String[] args) throws Exception {
        int status = run(args, System.out, System.err);
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    /** Ordered records the order in which modules are made: the configuration's. */
    private static final class Ordered implements ModuleFactory {
        private final ModuleFactory inner;
        private final Map<Object, Integer> order = new IdentityHashMap<>();

        Ordered(ModuleFactory inner) {
            this.inner = inner;
        }

        @Override
        public Object createModule(String name) throws CheckstyleException {
            Object m = inner.createModule(name);
            order.put(m, order.size());
            return m;
        }

        /** sort orders the checks of every TreeWalker made. */
        void sort() throws ReflectiveOperationException {
            Comparator<Object> byOrder = Comparator.comparingInt(o -> order.getOrDefault(o, Integer.MAX_VALUE));
            for (Object m : order.keySet()) {
                if (!(m instanceof TreeWalker)) {
                    continue;
                }
                for (String name : new String[] {"tokenToOrdinaryChecks", "tokenToCommentChecks"}) {
                    Field f = TreeWalker.class.getDeclaredField(name);
                    f.setAccessible(true);
                    @SuppressWarnings("unchecked")
                    Map<String, Set<Object>> byToken = (Map<String, Set<Object>>) f.get(m);
                    for (Map.Entry<String, Set<Object>> e : byToken.entrySet()) {
                        e.setValue(sorted(e.getValue(), byOrder));
                    }
                }
                for (String name : new String[] {"ordinaryChecks", "commentChecks"}) {
                    Field f = TreeWalker.class.getDeclaredField(name);
                    f.setAccessible(true);
                    @SuppressWarnings("unchecked")
                    Set<Object> checks = (Set<Object>) f.get(m);
                    f.set(m, sorted(checks, byOrder));
                }
            }
        }

        private static Set<Object> sorted(Set<Object> set, Comparator<Object> by) {
            List<Object> list = new ArrayList<>(set);
            list.sort(by);
            return new LinkedHashSet<>(list);
        }
    }

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String config = null;
        String format = "plain";
        List<File> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
            case "-c":
                config = args[++i];
                break;
            case "-f":
                format = args[++i];
                break;
            default:
                files.add(new File(args[i]).getAbsoluteFile());
            }
        }
        if (config == null || !"xml".equals(format)) {
            err.println("the warm checkstyle takes -c CONFIG -f xml FILE...");
            return EXIT_USAGE;
        }
        int errors;
        int status;
        try {
            // As Main: the system properties expand ${...} in the
            // configuration; sources are read in file.encoding, which the
            // cold run sets to UTF-8.
            Properties props = new Properties();
            props.putAll(System.getProperties());
            props.setProperty("file.encoding", "UTF-8");
            Configuration cfg = ConfigurationLoader.loadConfiguration(config, new PropertiesExpander(props),
                    ConfigurationLoader.IgnoredModulesOptions.OMIT, ThreadModeSettings.SINGLE_THREAD_MODE_INSTANCE);
            ClassLoader loader = Checker.class.getClassLoader();
            PackageObjectFactory factory = new PackageObjectFactory(Checker.class.getPackage().getName(), loader);
            // The factory Checker makes for its modules, recording their order.
            Ordered ordered = new Ordered(new PackageObjectFactory(PackageNamesLoader.getPackageNames(loader), loader));
            RootModule root = (RootModule) factory.createModule(cfg.getName());
            root.setModuleClassLoader(loader);
            if (root instanceof Checker) {
                ((Checker) root).setCharset("UTF-8");
                ((Checker) root).setModuleFactory(ordered);
            }
            root.configure(cfg);
            ordered.sort();
            root.addListener(new XMLLogger(out, AutomaticBean.OutputStreamOptions.NONE));
            try {
                errors = root.process(files);
            } finally {
                root.destroy();
            }
            status = errors;
        } catch (CheckstyleException ex) {
            errors = 1;
            status = EXIT_EXCEPTION;
            ex.printStackTrace(err);
        }
        if (errors != 0) {
            err.println(String.format(Locale.ROOT, "Checkstyle ends with %d errors.", errors));
        }
        return status;
    }
}
