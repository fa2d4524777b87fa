package io.ringbus.bench.network;

import io.ringbus.bench.ResultsJson;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code natsload}, the Go load generator of {@code ringbus-bench/src/main/go/natsload}
 * (nats.go, the NATS authors' Go client), as a child process, optionally pinned to CPUs with
 * {@code taskset}, and reads the one JSON object it prints. Verification (loss, duplicates,
 * per-publisher order) happens inside natsload; its result says {@code verified} or names the
 * {@code failure}.
 */
final class NatsLoad {
    private final Path binary;

    private NatsLoad(Path binary) {
        this.binary = binary;
    }

    /**
     * @param explicit {@code --natsload}, or {@code null} to look for {@code target/natsload} beside this
     *                 jar and in {@code ringbus-bench/target/} of the working directory
     * @return the load generator
     * @throws IllegalArgumentException saying how to build it when it is not found
     */
    static NatsLoad locate(Path explicit) {
        List<Path> candidates = new ArrayList<>();
        if (explicit != null) {
            candidates.add(explicit);
        } else {
            try {
                Path self = Path.of(NatsLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                candidates.add(self.toAbsolutePath().getParent().resolve("natsload"));
            } catch (URISyntaxException | RuntimeException e) {
                // No code source: the working directory is still tried.
            }
            candidates.add(Path.of("ringbus-bench/target/natsload").toAbsolutePath());
        }
        for (Path p : candidates) {
            if (Files.isExecutable(p)) {
                return new NatsLoad(p);
            }
        }
        throw new IllegalArgumentException("natsload not found (looked at " + candidates + "): bin/bench network|subs|soak"
                + " builds it (needs bin/bench-deps: golang-go, golang-github-nats-io-go-nats-dev), or pass --natsload");
    }

    /** @return the binary */
    Path binary() {
        return binary;
    }

    /**
     * Runs natsload once and waits for it.
     *
     * @param cpus    a {@code taskset -c} CPU list to pin it to, or {@code null} for none
     * @param args    natsload's flags ({@code -url} included)
     * @param limit   how long it may run before it is killed
     * @param log     file that receives its stderr (progress lines)
     * @param type    the result its mode prints
     * @param <T>     that result type
     * @return the JSON object it printed
     * @throws IOException when it cannot run, exits non-zero, overruns {@code limit} or prints no {@code type};
     *                     the message holds the end of its stderr
     */
    <T extends NatsLoadResult> T run(Class<T> type, String cpus, List<String> args, Duration limit, Path log)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.add(binary.toString());
        command.addAll(args);
        Path out = Files.createTempFile(log.getParent(), "natsload-", ".json");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        ServerProcess.track(process);
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IOException("natsload did not finish within " + limit.toSeconds() + "s: "
                        + String.join(" ", command) + "\n" + tail(log));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0 || text.isEmpty()) {
                throw new IOException("natsload exited with code " + process.exitValue() + ": "
                        + String.join(" ", command) + "\n" + tail(log));
            }
            try {
                return type.cast(ResultsJson.read(text, NatsLoadResult.class));
            } catch (IllegalArgumentException | ClassCastException e) {
                throw new IOException("natsload printed no " + type.getSimpleName() + " result: " + e.getMessage()
                        + "\n" + text, e);
            }
        } finally {
            process.destroyForcibly();
            ServerProcess.untrack(process);
            Files.deleteIfExists(out);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
