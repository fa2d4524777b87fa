package io.ringbus.bench.jetstream;

import io.ringbus.bench.GoProgram;
import io.ringbus.bench.network.ServerCpu;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the selected cases against one started server: a warm-up, then for each case its setup
 * steps (unmeasured: a fresh stream, a filled stream, a bucket) and its measured jsbench step,
 * the server's CPU time read just before and just after that step. A step that fails becomes a
 * failed sample and the next case runs. Not thread-safe.
 */
final class CaseRunner {
    /** The read cases' stream and its subjects. */
    static final String READ_STREAM = "READ";
    private static final String PAYLOAD = "128";

    private final Path jsbench;
    private final JsSettings settings;
    private final ServerCpu cpu;
    private final Path log;
    private final PrintStream out;

    /**
     * @param jsbench  the load program
     * @param settings the workload
     * @param cpu      reads the server's CPU time
     * @param log      file that receives jsbench's stderr
     * @param out      where progress goes
     */
    CaseRunner(Path jsbench, JsSettings settings, ServerCpu cpu, Path log, PrintStream out) {
        this.jsbench = jsbench;
        this.settings = settings;
        this.cpu = cpu;
        this.log = log;
        this.out = out;
    }

    /**
     * @param contender the server, started
     * @param round     1-based
     * @param url       its client URL
     * @param pid       its process id
     * @param cases     what to run, in order
     * @return a sample per case, failed ones included
     */
    List<Sample> run(Contender contender, int round, String url, long pid, List<JsCase> cases)
            throws InterruptedException {
        warmUp(url);
        List<Sample> samples = new ArrayList<>();
        String fillFailure = null;
        boolean filled = false;
        for (JsCase c : cases) {
            Sample s;
            try {
                if (c.readsFill() && !filled) {
                    filled = true;
                    fillFailure = fill(url);
                }
                s = c.readsFill() && fillFailure != null ? Sample.failed(c, contender, round, fillFailure)
                        : measure(c, contender, round, url, pid);
            } catch (IOException e) {
                out.println("    " + e.getMessage().lines().findFirst().orElse(""));
                s = Sample.failed(c, contender, round, brief(e.getMessage()));
            }
            out.println(progress(s));
            samples.add(s);
        }
        return samples;
    }

    private void warmUp(String url) throws InterruptedException {
        if (settings.warmServer().isZero()) {
            return;
        }
        try {
            step(url, "-mode", "stream", "-stream", "WARM", "-subject", "warm");
            JsBenchResult published = step(url, "-mode", "publish", "-stream", "WARM", "-subject", "warm", "-size",
                    PAYLOAD, "-window", Integer.toString(settings.window()), "-warmup", "0s", "-duration",
                    settings.warmServer().toMillis() + "ms");
            // The read paths too (a JVM compiles what runs; the read cases have no warm-up of their own):
            // what was published is read back once by each kind of consumer the read cases use.
            long stored = published.failure() == null ? Math.min(published.total(), settings.replayMessages()) : 0;
            for (String mode : stored > 0 ? List.of("pull", "push", "ordered") : List.<String>of()) {
                step(url, "-mode", mode, "-stream", "WARM", "-subject", "warm", "-msgs", Long.toString(stored),
                        "-batch", Integer.toString(settings.ackBatch()));
            }
        } catch (IOException e) {
            out.println("    warm-up failed (the cases run all the same): " + brief(e.getMessage()));
        }
    }

    /** @return why the fill failed, or {@code null} */
    private String fill(String url) throws IOException, InterruptedException {
        JsBenchResult r = step(url, "-mode", "fill", "-stream", READ_STREAM, "-subject", "read", "-size", PAYLOAD,
                "-msgs", Long.toString(settings.replayMessages()), "-window", Integer.toString(settings.window()));
        return r.failure() == null ? null : "fill: " + r.failure();
    }

    private Sample measure(JsCase c, Contender contender, int round, String url, long pid)
            throws IOException, InterruptedException {
        for (String[] setup : setup(c)) {
            step(url, setup);
        }
        long before = cpu.ticks(pid);
        JsBenchResult r = step(url, measured(c));
        long after = cpu.ticks(pid);
        long ticks = before < 0 || after < before ? -1 : after - before;
        String failure = r.failure();
        if (failure == null && r.messages() <= 0) {
            failure = "no operation completed in the measured time";
        }
        return new Sample(c, contender, round, failure == null ? r.perSecond() : Double.NaN, r.messages(), r.total(),
                ticks, cpu.microsPerMessage(before, after, r.total()), r.stalls(), failure);
    }

    private List<String[]> setup(JsCase c) {
        return switch (c.kind()) {
            case ASYNC_PUBLISH, SYNC_PUBLISH -> List.<String[]>of(new String[] {"-mode", "stream"});
            case KV_PUT -> List.<String[]>of(new String[] {"-mode", "kvbucket"});
            case READ -> c == JsCase.KV_GET ? List.of(new String[] {"-mode", "kvbucket"}, new String[] {"-mode", "kvfill",
                    "-size", PAYLOAD, "-keys", Integer.toString(settings.kvKeys())}) : List.of();
        };
    }

    private String[] measured(JsCase c) {
        String window = Integer.toString(settings.window());
        String duration = settings.duration().toMillis() + "ms";
        String warmup = settings.warmup().toMillis() + "ms";
        String msgs = Long.toString(settings.replayMessages());
        String keys = Integer.toString(settings.kvKeys());
        return switch (c) {
            case ASYNC_128 -> new String[] {"-mode", "publish", "-size", PAYLOAD, "-window", window, "-warmup", warmup,
                "-duration", duration};
            case ASYNC_1K -> new String[] {"-mode", "publish", "-size", "1024", "-window", window, "-warmup", warmup,
                "-duration", duration};
            case ASYNC_128_MANY -> new String[] {"-mode", "publish", "-size", PAYLOAD, "-window", window, "-warmup",
                warmup, "-duration", duration, "-pubs", Integer.toString(JsCase.MANY_PUBLISHERS)};
            case SYNC_128 -> new String[] {"-mode", "publish", "-sync", "-size", PAYLOAD, "-warmup", warmup, "-duration",
                duration};
            case PULL_ACK -> new String[] {"-mode", "pull", "-stream", READ_STREAM, "-subject", "read", "-msgs", msgs,
                "-batch", Integer.toString(settings.ackBatch())};
            case PUSH_REPLAY -> new String[] {"-mode", "push", "-stream", READ_STREAM, "-subject", "read", "-msgs", msgs};
            case ORDERED_REPLAY -> new String[] {"-mode", "ordered", "-stream", READ_STREAM, "-subject", "read", "-msgs",
                msgs};
            case KV_PUT -> new String[] {"-mode", "kvput", "-size", PAYLOAD, "-keys", keys, "-warmup", warmup,
                "-duration", duration};
            case KV_GET -> new String[] {"-mode", "kvget", "-size", PAYLOAD, "-keys", keys, "-warmup", warmup,
                "-duration", duration};
        };
    }

    private JsBenchResult step(String url, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("-url", url, "-timeout", settings.timeout().toSeconds() + "s"));
        all.addAll(List.of(args));
        return GoProgram.run(jsbench, all, settings.timeout().plus(Duration.ofSeconds(30)), log, JsBenchResult.class);
    }

    /**
     * @param message a failure from {@link GoProgram#run}: a first line naming the command, then the
     *                end of the program's stderr
     * @return the line that says why: the last line of stderr, or the first line without the command
     */
    static String brief(String message) {
        String[] lines = message.strip().split("\n");
        String first = lines[0];
        if (first.contains(" did not finish within ")) {
            int colon = first.indexOf("s: ");
            return colon < 0 ? first : first.substring(0, colon + 1);
        }
        return lines.length > 1 ? lines[lines.length - 1].strip() : first;
    }

    private static String progress(Sample s) {
        String head = String.format(Locale.ROOT, "  round %d  %-14s %-8s  %-24s ", s.round(), s.contender().server(),
                s.contender().policyName(), s.jsCase().label());
        if (!s.ok()) {
            return head + "FAILED: " + s.failure();
        }
        return head + String.format(Locale.ROOT, "%,10.0f/s  server cpu %6.1f us/msg%s", s.perSecond(),
                s.cpuMicrosPerMessage(), s.stalls() > 0 ? "  (" + s.stalls() + " stalls)" : "");
    }
}
