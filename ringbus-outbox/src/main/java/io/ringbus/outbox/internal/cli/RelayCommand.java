package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.HttpWebhookSink;
import io.ringbus.outbox.JetStreamSink;
import io.ringbus.outbox.JetStreamSinkBuilder;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RelayBuilder;
import io.ringbus.outbox.RetryPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code relay}: creates or upgrades the schema, delivers the outbox's rows until SIGTERM or
 * SIGINT, then lets the current batch finish and commit (a shutdown hook closes the relay). Prints
 * {@code relay <name> started} once running and {@code relay <name> stopped ...} at the end, on
 * stdout. Killed without a chance to stop (SIGKILL), the relay's uncommitted batch is delivered
 * again by the next relay, and nothing else.
 */
@Command(name = "relay", mixinStandardHelpOptions = true,
        description = "Deliver the outbox's rows until SIGTERM/SIGINT (at least once, in order per key).")
public final class RelayCommand extends OutboxCommand {
    /** The sinks the CLI can build with {@code --sink}. */
    enum SinkKind {
        /** {@link PrintSink}: one line per row on stdout. */
        log
    }

    @Option(names = "--sink", paramLabel = "KIND", description = "where rows go: ${COMPLETION-CANDIDATES}"
            + " (log: one line per row on stdout)")
    private SinkKind sink;

    @Option(names = "--http-url", paramLabel = "URL",
            description = "deliver by HTTP POST to this webhook (2xx delivered, 4xx dead letter, 5xx/timeout retry)")
    private URI httpUrl;

    @Option(names = "--nats-url", paramLabel = "URL",
            description = "deliver to NATS JetStream at this server (Nats-Msg-Id = event id, waits for the ack)")
    private String natsUrl;

    @Option(names = "--subject-prefix", paramLabel = "PREFIX",
            description = "JetStream: publish to PREFIX.<subject>")
    private String subjectPrefix;

    @Option(names = "--max-concurrency", paramLabel = "N",
            description = "deliveries in flight at once (default: 50 for HTTP, 256 for JetStream)")
    private Integer maxConcurrency;

    @Option(names = "--parallel-batches", paramLabel = "N", defaultValue = "1",
            description = "batches in flight at once, 1 to " + RelayBuilder.MAX_PARALLEL_BATCHES + " (default: ${DEFAULT-VALUE})")
    private int parallelBatches;

    @Option(names = "--sink-delay-ms", paramLabel = "MS", defaultValue = "0",
            description = "log sink: wait this long before each line, to play a slow destination (testing aid)")
    private long sinkDelayMillis;

    @Option(names = "--name", description = "the relay's name, for logs and stats (default: relay-<pid>)")
    private String name = "relay-" + ProcessHandle.current().pid();

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "500",
            description = "rows claimed per transaction, 1 to " + RelayBuilder.MAX_BATCH_SIZE + " (default: ${DEFAULT-VALUE})")
    private int batchSize;

    @Option(names = "--poll-interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "how long an idle relay waits before looking again (default: 1s on PostgreSQL, which"
                    + " also wakes on NOTIFY; 100ms on H2); " + DurationConverter.GRAMMAR)
    private Duration pollInterval;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "10",
            description = "attempts before a row becomes a dead letter (default: ${DEFAULT-VALUE})")
    private int maxAttempts;

    @Option(names = "--keep-delivered", description = "mark rows delivered and keep them for the retention"
            + " (7 days) instead of deleting them once delivered")
    private boolean keepDelivered;

    @Option(names = "--archive", description = "delete rows once delivered and copy them into <table>_archive in"
            + " the same statement, kept for the retention (7 days): an audit trail off the hot table")
    private boolean archive;

    @Option(names = "--wal", paramLabel = "SLOT", description = "WAL mode: read committed rows from PostgreSQL's"
            + " logical replication stream through this slot (created on first start; needs wal_level=logical)"
            + " instead of polling")
    private String walSlot;

    /** Creates the command (picocli fills in its options). */
    public RelayCommand() {
    }

    /**
     * @return 0 after a shutdown hook stopped the relay (the JVM is exiting by then)
     * @throws Exception when the outbox cannot be opened (exit code 1)
     */
    @Override
    public Integer call() throws Exception {
        RetryPolicy retryPolicy = new RetryPolicy(maxAttempts, RetryPolicy.DEFAULT.initialBackoff(),
                RetryPolicy.DEFAULT.maxBackoff(), RetryPolicy.DEFAULT.jitter());
        PrintWriter out = out();
        OutboxSink outboxSink = sink(out);
        Outbox outbox = database.open(true);
        Relay relay;
        try {
            RelayBuilder builder = outbox.relay().name(name).sink(outboxSink).batchSize(batchSize)
                    .parallelBatches(parallelBatches).retryPolicy(retryPolicy).deleteDelivered(!keepDelivered)
                    .archiveDelivered(archive);
            if (pollInterval != null) {
                builder.pollInterval(pollInterval);
            }
            if (walSlot != null) {
                builder.wal(walSlot);
            }
            relay = builder.start();
        } catch (RuntimeException e) {
            outbox.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("ringbus-outbox-shutdown").unstarted(() -> {
            boolean clean = relay.close(Duration.ofSeconds(30));
            outboxSink.close();
            outbox.close();
            out.println("relay " + relay.name() + " stopped" + (clean ? "" : " (its batch did not finish in 30 s)")
                    + ": " + relay.stats().delivered() + " delivered, " + relay.stats().deadLettered() + " dead-lettered, "
                    + relay.stats().databaseErrors() + " database errors");
            out.flush();
            stopped.countDown();
        }));
        out.println("relay " + relay.name() + " started: " + database.where() + ", sink " + outboxSink.name());
        out.flush();
        stopped.await();
        return 0;
    }

    private OutboxSink sink(PrintWriter out) throws IOException {
        int given = (sink != null ? 1 : 0) + (httpUrl != null ? 1 : 0) + (natsUrl != null ? 1 : 0);
        if (given != 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "a relay needs exactly one sink: --sink log, --http-url URL or --nats-url URL");
        }
        if (httpUrl != null) {
            return HttpWebhookSink.builder(httpUrl).maxConcurrency(concurrency(50)).build();
        }
        if (natsUrl != null) {
            JetStreamSinkBuilder builder = JetStreamSink.builder(natsUrl).maxConcurrency(concurrency(256));
            if (subjectPrefix != null) {
                builder.subjectPrefix(subjectPrefix);
            }
            return builder.build();
        }
        return switch (sink) {
            case log -> new PrintSink(out, sinkDelayMillis);
        };
    }

    private int concurrency(int sinkDefault) {
        return maxConcurrency != null ? maxConcurrency : sinkDefault;
    }
}
