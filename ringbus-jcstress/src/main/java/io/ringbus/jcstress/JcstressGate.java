package io.ringbus.jcstress;

import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;
import org.openjdk.jcstress.infra.runners.TestList;

import java.io.File;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Runs jcstress as its own {@code Main} does, then turns the results into an exit status, which
 * jcstress 0.16 does not: 0 when every selected test ran and passed, 1 when a test observed a
 * FORBIDDEN outcome, failed to run (error, timeout, API mismatch) or was not run at all (e.g. no
 * CPU schedule for its actor count), 2 for bad options. The build runs this jar in the
 * {@code verify} phase, so any of these fails {@code bin/test}.
 *
 * <p>Takes jcstress' own options ({@code -m quick}, {@code -t regexp}, ...); writes the result
 * blob into the working directory and the reports under {@code -r}. Single-threaded; exits the JVM.
 */
public final class JcstressGate {
    private JcstressGate() {
    }

    /**
     * Runs the selected tests and exits with the status above.
     *
     * @param args jcstress options
     * @throws Exception when jcstress itself fails (the JVM then exits non-zero too)
     */
    public static void main(String[] args) throws Exception {
        Options options = new Options(args);
        if (!options.parse()) {
            System.exit(2);
        }
        Set<String> selected = new TreeSet<>();
        Pattern filter = Pattern.compile(options.getTestFilter());
        for (String test : TestList.tests()) {
            if (filter.matcher(test).find()) {
                selected.add(test);
            }
        }
        if (selected.isEmpty()) {
            System.out.println("ringbus-jcstress: FAILED, no test matches " + options.getTestFilter());
            System.exit(1);
        }
        try {
            new JCStress(options).run();
        } catch (AssertionError failures) {
            // jcstress 0.16 throws this after its report when a test failed; the verdict lists them.
        }
        System.exit(verdict(options.getResultFile(), selected) ? 0 : 1);
    }

    /** @return whether every selected test ran, with no forbidden outcome and no error */
    private static boolean verdict(String resultFile, Set<String> selected) throws Exception {
        if (!new File(resultFile).isFile()) {
            System.out.println("ringbus-jcstress: FAILED, jcstress wrote no results (" + resultFile + ")");
            return false;
        }
        InProcessCollector collector = new InProcessCollector();
        DiskReadCollector reader = new DiskReadCollector(resultFile, collector);
        try {
            reader.dump();
        } finally {
            reader.close();
        }
        List<TestResult> results = ReportUtils.mergedByName(collector.getTestResults());
        Set<String> notRun = new TreeSet<>(selected);
        int failed = 0;
        for (TestResult result : results) {
            notRun.remove(result.getName());
            if (result.status() != Status.NORMAL) {
                failed++;
                System.out.println("ringbus-jcstress: ERROR " + result.status() + " in " + result.getName()
                        + ": " + result.getMessages());
            } else if (!result.grading().isPassed) {
                failed++;
                System.out.println("ringbus-jcstress: FAILED " + result.getName() + ": "
                        + result.grading().failureMessages);
            }
        }
        for (String test : notRun) {
            System.out.println("ringbus-jcstress: NOT RUN " + test);
        }
        boolean passed = failed == 0 && notRun.isEmpty();
        System.out.println("ringbus-jcstress: " + (passed ? "PASSED" : "FAILED") + ", " + results.size()
                + " tests run, " + failed + " failed or in error, " + notRun.size() + " not run");
        return passed;
    }
}
