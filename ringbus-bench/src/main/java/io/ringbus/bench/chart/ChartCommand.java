package io.ringbus.bench.chart;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The {@code chart} subcommand: draws existing results files as SVG bar charts, each beside its
 * JSON ({@code bench-results/seed.json} to {@code bench-results/seed.svg}), without running a
 * benchmark. Exit code 0 when every file was drawn, 1 when one could not be read or is no result.
 */
@Command(name = "chart",
        description = "Draws results JSON files (seed, blocking, network, outbox, JMH) as SVG bar charts beside them.")
public final class ChartCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "results JSON files, e.g. bench-results/*.json")
    List<Path> files;

    /** Creates the command; picocli fills in the options. */
    public ChartCommand() {
    }

    @Override
    public Integer call() {
        int failed = 0;
        for (Path json : files) {
            try {
                if (!Files.isRegularFile(json)) {
                    throw new NoSuchFileException(json.toString());
                }
                Path svg = ResultCharts.writeBeside(json);
                spec.commandLine().getOut().println("chart written to " + svg);
            } catch (IOException | IllegalArgumentException e) {
                spec.commandLine().getErr().println("FAILED: " + json + ": " + e);
                failed++;
            }
        }
        spec.commandLine().getOut().flush();
        return failed == 0 ? 0 : 1;
    }
}
