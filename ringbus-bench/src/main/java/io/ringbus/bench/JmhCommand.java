package io.ringbus.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Hands every argument to JMH's own command line ({@code org.openjdk.jmh.Main}), so that
 * {@code java -jar ringbus-bench.jar jmh PublishBenchmark -prof gc} equals
 * {@code java -cp ringbus-bench.jar org.openjdk.jmh.Main PublishBenchmark -prof gc}.
 */
@Command(name = "jmh", description = "Runs JMH benchmarks; arguments go to org.openjdk.jmh.Main (try: jmh -h).")
public final class JmhCommand implements Callable<Integer> {
    @Unmatched
    private List<String> jmhArgs = new ArrayList<>();

    /** Creates the command; picocli fills in the arguments. */
    public JmhCommand() {
    }

    @Override
    public Integer call() throws Exception {
        org.openjdk.jmh.Main.main(jmhArgs.toArray(new String[0]));
        return 0;
    }
}
