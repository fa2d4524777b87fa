package io.ringbus.bench.network;

import io.nats.client.Connection;
import io.nats.client.Nats;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The overload part of the {@code network} scenario, in two variants.
 *
 * <p><b>Slow consumer (NATS semantics), every server.</b> The server runs with {@code -Xmx512m}
 * (ringbus-server) and {@code max_pending} 8 MiB (both). Phase 1: the publishers send the
 * messages with one fast subscriber, giving the unloaded publish rate R. Phase 2: the same, with
 * two more subscribers consuming at R / slow-factor: a jnats subscriber whose handler is paced,
 * and a raw socket reader that reads at that pace. jnats' reader thread drains the socket into
 * memory whatever the handler does, so the server never sees the jnats subscriber as slow: the
 * backlog sits in the client, and jnats itself drops once its pending limit (512 Ki messages) is
 * reached. The socket reader lets the server's outbound buffer fill: ringbus-server disconnects
 * it once max_pending is passed; nats-server first stalls the publishers' connections and
 * disconnects only when a write to the consumer blocks longer than its write deadline. The fast
 * subscriber must get every message; the two publish rates show whether publishers were slowed.
 *
 * <p><b>BLOCK backpressure, ringbus only.</b> A child JVM ({@link OverloadServerMain}, -Xmx512m,
 * ExitOnOutOfMemoryError) embeds a broker and ringbus-server. Phase 1 measures the publish rate
 * R with a fast in-process WORKER/BLOCK subscriber; phase 2 adds one paced at R / slow-factor.
 * Its full buffer blocks dispatch, the ring fills, the server stops reading the publishers'
 * sockets, TCP pushes back and jnats' publish waits: the publishers slow to the consumer's
 * rate, the subscriber gets every message, and the heap stays bounded.
 */
public final class OverloadRunner {
    /** max_pending given to both servers in the slow-consumer variant. */
    static final long MAX_PENDING = 8L << 20;
    /** The BLOCK variant's ring. */
    static final int RING_SIZE = 65_536;
    /** The BLOCK subscriber's buffer. */
    static final int BUFFER_SIZE = 1_024;
    private static final Pattern PORT = Pattern.compile("READY port=(\\d+)");

    private final ServerBinaries binaries;
    private final long messages;
    private final int publishers;
    private final String heap;
    private final int slowFactor;
    private final Duration timeout;
    private final Path workDir;
    private final PrintStream progress;

    /**
     * @param binaries   where the servers are
     * @param messages   messages per phase
     * @param publishers publisher connections
     * @param heap       the overloaded ringbus JVM's -Xmx, e.g. {@code 512m}
     * @param slowFactor how many times slower than the unloaded publish rate the slow consumers are
     * @param timeout    how long a phase may take beyond the slow consumer's expected time
     * @param workDir    where logs and config files go
     * @param progress   where to print progress
     */
    OverloadRunner(ServerBinaries binaries, long messages, int publishers, String heap, int slowFactor,
                   Duration timeout, Path workDir, PrintStream progress) {
        new NetworkCase(publishers, 1, 16, messages); // validates the counts
        this.binaries = binaries;
        this.messages = messages;
        this.publishers = publishers;
        this.heap = heap;
        this.slowFactor = slowFactor;
        this.timeout = timeout;
        this.workDir = workDir;
        this.progress = progress;
    }

    /**
     * @param servers the servers of the slow-consumer variant; the BLOCK variant runs when
     *                ringbus-server is among them
     * @return the results
     * @throws NetworkVerificationException when a run fails its checks
     * @throws Exception                    when a server cannot be started or reached
     */
    public OverloadReport run(List<ServerKind> servers) throws Exception {
        List<SlowConsumerResult> slow = new ArrayList<>();
        for (ServerKind kind : servers) {
            try {
                slow.add(slowConsumer(kind));
            } catch (NetworkVerificationException | IOException e) {
                // Recorded; the other servers and the BLOCK variant still run.
                progress.println("  " + kind.label() + " overload, slow consumers: FAILED: " + e.getMessage());
                slow.add(SlowConsumerResult.failed(kind, e.getMessage()));
            }
        }
        BlockResult block = servers.contains(ServerKind.RINGBUS) ? block() : null;
        return new OverloadReport(MAX_PENDING, slowFactor, slow, block);
    }

    private SlowConsumerResult slowConsumer(ServerKind kind) throws Exception {
        int port = EphemeralPorts.pick();
        Path config = workDir.resolve(kind.label() + "-overload.conf");
        Files.writeString(config, kind == ServerKind.RINGBUS ? "max_pending = " + MAX_PENDING + "\n"
                : "max_pending: " + MAX_PENDING + "\n", StandardCharsets.UTF_8);
        List<String> command = kind.command(binaries, port, heap, List.of(), config);
        Path log = workDir.resolve(kind.label() + "-overload-" + port + ".log");
        progress.println("  overload, slow consumers: " + String.join(" ", command));
        NetworkCase c = new NetworkCase(publishers, 1, 16, messages);
        JnatsWorkload workload = new JnatsWorkload(timeout);
        try (ServerProcess server = ServerProcess.start(kind.label(), command, port, log, Duration.ofSeconds(30))) {
            workload.run(server.url(), c, "overload.warmup");
            RunOutcome unloaded = workload.run(server.url(), c, "overload.unloaded");
            double slowRate = unloaded.publishedPerSecond() / slowFactor;
            progress.printf(Locale.ROOT, "  %-15s unloaded: %.2f M msg/s published; slow consumers at %.0f msg/s%n",
                    kind.label(), unloaded.publishedPerSecond() / 1e6, slowRate);
            String subject = "overload.slow";
            long[] perPublisher = c.messagesPerPublisher();
            ConnectionWatch watch = new ConnectionWatch();
            ConnectionWatch slowWatch = new ConnectionWatch();
            CountDownLatch fastDone = new CountDownLatch(1);
            List<Connection> connections = new ArrayList<>();
            PublisherGroup group = null;
            try (CountingSubscriber fast = CountingSubscriber.open(JnatsWorkload.options(server.url(), "fast", watch,
                         timeout), subject, perPublisher, fastDone);
                 CountingSubscriber slowJnats = CountingSubscriber.open(JnatsWorkload.options(server.url(),
                         "slow-jnats", slowWatch, timeout), subject, perPublisher, new CountDownLatch(1),
                         Pacer.perSecond(slowRate));
                 SlowSocketSubscriber slowSocket = SlowSocketSubscriber.open(port, subject, perPublisher,
                         Pacer.perSecond(slowRate))) {
                for (int p = 0; p < publishers; p++) {
                    connections.add(Nats.connect(JnatsWorkload.options(server.url(), "pub-" + p, watch, timeout)));
                }
                group = new PublisherGroup(connections, subject, perPublisher, c.payloadBytes());
                long start = group.release();
                long published = group.awaitFlushed(timeout);
                if (!fastDone.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new NetworkVerificationException(kind.label() + " overload: the fast subscriber got "
                            + fast.check().received() + " of " + messages + " within " + timeout.toSeconds() + "s");
                }
                fast.sync();
                String verdict = fast.check().verdict();
                if (verdict != null || !watch.clean()) {
                    throw new NetworkVerificationException(kind.label() + " overload: the fast subscriber or a"
                            + " publisher was hurt by the slow consumers: " + (verdict != null ? verdict : watch.problems()));
                }
                slowSocket.awaitDisconnect(10_000);
                double overloadRate = messages * 1e9 / (published - start);
                long peakRss = server.peakRssKiB();
                SlowConsumerResult result = new SlowConsumerResult(kind, messages, unloaded.publishedPerSecond(),
                        overloadRate, slowRate, fast.check().received(), slowJnats.check().received(),
                        slowJnats.clientPending(), slowJnats.clientDropped(), slowWatch.disconnects() > 0, slowSocket.received(),
                        slowSocket.disconnected(), slowSocket.serverError(), -1, peakRss, null);
                watch.closing();
                slowWatch.closing();
                return withServerCount(result, server);
            } finally {
                watch.closing();
                slowWatch.closing();
                if (group != null) {
                    group.stop();
                }
                for (Connection connection : connections) {
                    connection.close();
                }
            }
        }
    }

    /** Stops the server and fills in the slow consumers it counted (ringbus: its stats; nats: its log). */
    private static SlowConsumerResult withServerCount(SlowConsumerResult r, ServerProcess server)
            throws InterruptedException {
        server.stop();
        String log = server.log();
        long count;
        Map<String, Long> stats = StatsText.parseLast(log, "ServerStats");
        if (stats.containsKey("slowConsumers")) {
            count = stats.get("slowConsumers");
        } else {
            count = log.lines().filter(l -> l.toLowerCase(Locale.ROOT).contains("slow consumer")).count();
        }
        return new SlowConsumerResult(r.server(), r.messages(), r.unloadedPublishRate(), r.overloadPublishRate(),
                r.slowRate(), r.fastReceived(), r.jnatsSlowHandled(), r.jnatsSlowPending(), r.jnatsSlowDropped(),
                r.jnatsSlowDisconnected(),
                r.socketSlowReceived(), r.socketSlowDisconnected(), r.socketSlowError(), count, r.peakRssKiB(), null);
    }

    private BlockResult block() throws Exception {
        List<String> command = List.of(binaries.java().toString(), "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError",
                "-cp", System.getProperty("java.class.path"), OverloadServerMain.class.getName(),
                Integer.toString(RING_SIZE), Integer.toString(BUFFER_SIZE));
        Path log = workDir.resolve("ringbus-overload-block.log");
        progress.println("  overload, BLOCK backpressure: java -Xmx" + heap + " ... " + OverloadServerMain.class.getSimpleName()
                + " " + RING_SIZE + " " + BUFFER_SIZE + "  (stderr " + log + ")");
        NetworkCase c = new NetworkCase(publishers, 1, 16, messages);
        long[] perPublisher = c.messagesPerPublisher();
        try (OverloadChild child = OverloadChild.start(command, log)) {
            Matcher ready = PORT.matcher(child.await("READY ", Duration.ofSeconds(30)));
            if (!ready.matches()) {
                throw new IOException("overload server child: bad READY line");
            }
            String url = "nats://127.0.0.1:" + ready.group(1);
            double unloaded = publishThrough(child, url, "overload.fast", 0, perPublisher, timeout);
            double consumerRate = unloaded / slowFactor;
            long interval = Math.round(1e9 / consumerRate);
            progress.printf(Locale.ROOT, "  %-15s unloaded: %.2f M msg/s published; BLOCK subscriber at %.0f msg/s%n",
                    "ringbus-server", unloaded / 1e6, consumerRate);
            Duration expected = Duration.ofNanos(interval * messages);
            double overload = publishThrough(child, url, "overload.slow", interval, perPublisher,
                    expected.multipliedBy(2).plus(timeout));
            child.send("REPORT");
            String report = child.await("Report[", Duration.ofSeconds(30));
            long peakRss = ProcStatus.peakRssKiB(child.pid());
            int exit = child.exit(Duration.ofSeconds(30));
            Map<String, Long> values = StatsText.parseLast(report, "Report");
            int verdictAt = report.indexOf(" verdict: ");
            return new BlockResult(messages, publishers, heap, RING_SIZE, BUFFER_SIZE, unloaded, overload, consumerRate,
                    values.getOrDefault("received", -1L), verdictAt < 0 ? null : report.substring(verdictAt + 10),
                    values.getOrDefault("brokerDropped", -1L), StatsText.parseLast(report, "ServerStats"),
                    values.getOrDefault("peakHeapBytes", -1L), peakRss, exit);
        }
    }

    /**
     * Has the child subscribe {@code subject} at the given pace, publishes every message to it
     * and waits until the child has them all.
     *
     * @return the publish rate in msg/s, until the publishers' flush returned
     */
    private static double publishThrough(OverloadChild child, String url, String subject, long intervalNanos,
                                         long[] perPublisher, Duration limit) throws Exception {
        StringBuilder counts = new StringBuilder();
        long total = 0;
        for (long n : perPublisher) {
            counts.append(' ').append(n);
            total += n;
        }
        child.send("SUBSCRIBE " + subject + " " + intervalNanos + counts);
        child.await("SUBSCRIBED " + subject, Duration.ofSeconds(30));
        ConnectionWatch watch = new ConnectionWatch();
        List<Connection> connections = new ArrayList<>();
        PublisherGroup group = null;
        try {
            for (int p = 0; p < perPublisher.length; p++) {
                connections.add(Nats.connect(JnatsWorkload.options(url, "pub-" + p, watch, limit)));
            }
            group = new PublisherGroup(connections, subject, perPublisher, 16);
            long start = group.release();
            long end = group.awaitFlushed(limit);
            child.await("DONE " + subject, limit);
            if (!watch.clean()) {
                throw new NetworkVerificationException("overload publishers: " + watch.problems());
            }
            return total * 1e9 / (end - start);
        } finally {
            watch.closing();
            if (group != null) {
                group.stop();
            }
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }
}
