// FixloopCheckstyle runs checkstyle as its command line (Main) runs
// "-c CONFIG -f xml FILE...", on the Checker API, for FixloopWorker. It is
// compiled against checkstyle's jars and loaded in their class loader.
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import com.puppycrawl.tools.checkstyle.Checker;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader;
import com.puppycrawl.tools.checkstyle.PackageObjectFactory;
import com.puppycrawl.tools.checkstyle.PropertiesExpander;
import com.puppycrawl.tools.checkstyle.ThreadModeSettings;
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
            RootModule root = (RootModule) factory.createModule(cfg.getName());
            root.setModuleClassLoader(loader);
            if (root instanceof Checker) {
                ((Checker) root).setCharset("UTF-8");
            }
            root.configure(cfg);
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
