// FixloopPMD runs PMD 7 as its command line runs "check -d FILE -R SETS
// -f FORMAT --no-cache --no-progress", on the PmdAnalysis API, for
// FixloopWorker. It is compiled against PMD's jars and loaded in their
// class loader.
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Properties;

import net.sourceforge.pmd.PMDConfiguration;
import net.sourceforge.pmd.PmdAnalysis;
import net.sourceforge.pmd.renderers.Renderer;
import net.sourceforge.pmd.renderers.RendererFactory;
import net.sourceforge.pmd.reporting.ReportStats;

public final class FixloopPMD {
    private FixloopPMD() {
    }

    /** PMD's exit statuses (CliExitCode). */
    private static final int OK = 0;
    private static final int ERROR = 1;
    private static final int USAGE = 2;
    private static final int VIOLATIONS = 4;
    private static final int RECOVERED = 5;

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        PMDConfiguration conf = new PMDConfiguration();
        String format = "text";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
            case "check":
            case "--no-cache":
            case "--no-progress":
                break;
            case "-d":
                conf.addInputPath(Paths.get(args[++i]));
                break;
            case "-R":
                for (String s : args[++i].split(",")) {
                    if (!s.isBlank()) {
                        conf.addRuleSet(s.trim());
                    }
                }
                break;
            case "-f":
                format = args[++i];
                break;
            default:
                err.println("the warm PMD does not take " + args[i]);
                return USAGE;
            }
        }
        // As the cold run: no incremental cache, sources in UTF-8
        // (file.encoding there), one file on the calling thread.
        conf.setIgnoreIncrementalAnalysis(true);
        conf.setSourceEncoding(StandardCharsets.UTF_8);
        conf.setThreads(0);
        // The renderer closes its writer at the end: out stays open.
        Writer w = new OutputStreamWriter(new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                out.flush();
            }
        }, StandardCharsets.UTF_8);
        ReportStats stats;
        int reporterErrors;
        try (PmdAnalysis pmd = PmdAnalysis.create(conf)) {
            // Not conf.setReportFormat: PmdAnalysis would add a renderer
            // of its own, on System.out.
            Renderer r = RendererFactory.createRenderer(format, new Properties());
            r.setWriter(w);
            pmd.addRenderer(r);
            stats = pmd.runAndReturnStats();
            reporterErrors = pmd.getReporter().numErrors();
        }
        out.flush();
        if (reporterErrors > 0) {
            return ERROR;
        }
        if (stats.getNumErrors() > 0) {
            return RECOVERED;
        }
        if (stats.getNumViolations() > 0) {
            return VIOLATIONS;
        }
        return OK;
    }
}
