package io.ringbus.bench;

import io.ringbus.bench.chart.ResultCharts;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code --json} option of every scenario command, mixed in with picocli's {@code @Mixin}:
 * where the results document goes, written by {@link ResultsJson}, with its SVG chart beside it
 * ({@code .svg} for {@code .json}, drawn by {@link ResultCharts#writeBeside(Path)}).
 */
public final class ResultsFile {
    @Option(names = "--json", description = "also write the results as JSON to this file, and as an SVG chart beside it (.svg for .json)")
    Path json;

    /** Creates the option; picocli fills it in. */
    public ResultsFile() {
    }

    /** @return whether {@code --json} was given */
    public boolean requested() {
        return json != null;
    }

    /**
     * Writes the document to the {@code --json} file and its chart beside it, and says where;
     * does nothing when {@code --json} was not given.
     *
     * @param document a results record that {@link ResultsJson} writes
     * @param out      where the two "written to" lines go
     * @throws IOException when a file cannot be written
     */
    public void write(Object document, PrintStream out) throws IOException {
        if (json == null) {
            return;
        }
        Files.writeString(json, ResultsJson.write(document), StandardCharsets.UTF_8);
        out.println("JSON written to " + json);
        out.println("chart written to " + ResultCharts.writeBeside(json));
    }
}
