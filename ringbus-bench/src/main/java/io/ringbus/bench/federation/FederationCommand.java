package io.ringbus.bench.federation;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.Median;
import io.ringbus.bench.ResultsFile;
import io.ringbus.bench.network.EphemeralPorts;
import io.ringbus.bench.storage.JetStreamServer;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.federation.JetStreamStorage;
import io.ringbus.federation.NatsFederation;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code bin/bench federation}: ringbus nodes linked through a private nats-server against the
 * floor the link can reach, plain jnats over the same server, in one run. Cases: one publishing
 * node to one subscribing node; to three (fan-out); durable publish through {@code JetStreamStorage}
 * against JetStream's own async publish (jnats, same window). Each case runs {@code --repeats} times;
 * the median is reported. Latency: the publisher's {@code System.nanoTime()} travels in the payload.
 */
@Command(name = "federation", mixinStandardHelpOptions = true,
        description = "ringbus nodes through NATS vs plain jnats through the same NATS; durable vs JetStream")
public final class FederationCommand implements java.util.concurrent.Callable<Integer> {
    @Option(names = "--messages", description = "messages per run (default: 200000)")
    long messages = 200_000;

    @Option(names = "--payload", description = "payload bytes, >= 8 (default: 128)")
    int payload = 128;

    @Option(names = "--window", description = "durable publish: acknowledgements outstanding at most (default: 1000)")
    int window = 1_000;

    @Option(names = "--repeats", description = "runs per case; the median is reported (default: 3)")
    int repeats = 3;

    @Option(names = "--nats-server", description = "the nats-server binary (default: PATH, then /usr/sbin)")
    Path natsServer;

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public FederationCommand() {
    }

    @Override
    public Integer call() throws Exception {
        if (messages < 1 || payload < 8 || window < 1 || repeats < 1) {
            throw new IllegalArgumentException("need messages >= 1, payload >= 8, window >= 1, repeats >= 1: messages="
                    + messages + ", payload=" + payload + ", window=" + window + ", repeats=" + repeats);
        }
        PrintStream out = System.out;
        JvmDescription jvm = JvmDescription.current();
        out.println(jvm.headline());
        Path binary = JetStreamServer.locate(natsServer);
        if (binary == null) {
            System.err.println("FAILED: nats-server not found: bin/bench-deps installs it");
            return 1;
        }
        String version = JetStreamServer.version(binary);
        Path work = Files.createTempDirectory("ringbus-bench-federation-");
        List<FederationResults.Row> rows = new ArrayList<>();
        try (JetStreamServer nats = JetStreamServer.spawn(binary, work.resolve("js"), EphemeralPorts.pick(),
                work.resolve("nats-server.log"))) {
            nats.awaitListening(Duration.ofSeconds(20));
            out.printf(Locale.ROOT, "peer: %s on %s; %,d messages of %d B per run, median of %d%n", version,
                    nats.url(), messages, payload, repeats);
            String url = nats.url();
            pair(rows, "1 -> 1", median(() -> jnatsFanOut(url, 1)), median(() -> ringbusFanOut(url, 1)));
            pair(rows, "1 -> 3 fan-out", median(() -> jnatsFanOut(url, 3)), median(() -> ringbusFanOut(url, 3)));
            pair(rows, "durable publish", median(() -> jetStreamPublish(url)), median(() -> ringbusDurable(url)));
        }
        out.println();
        out.printf(Locale.ROOT, "%-16s %-8s %14s %10s %10s %7s%n", "case", "system", "msg/s", "p50 us", "p99 us",
                "ratio");
        for (FederationResults.Row r : rows) {
            out.printf(Locale.ROOT, "%-16s %-8s %,14.0f %10.0f %10.0f %7s%n", r.name(), r.system(), r.rate(),
                    r.p50Micros(), r.p99Micros(), Double.isNaN(r.ratio()) ? "-" : String.format(Locale.ROOT, "%.2fx",
                            r.ratio()));
        }
        json.write(new FederationResults(FederationResults.SCENARIO, jvm.vm(), jvm.cores(), version, messages, payload,
                window, rows), out);
        return 0;
    }

    /** One run's figures: rate, p50, p99. */
    private record Run(double rate, double p50, double p99) {
    }

    /** A run that may throw. */
    private interface Case {
        Run run() throws Exception;
    }

    private Run median(Case c) throws Exception {
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < repeats; i++) {
            runs.add(c.run());
        }
        double rate = Median.of(runs.stream().mapToDouble(Run::rate).toArray());
        Run closest = runs.stream().min((a, b) -> Double.compare(Math.abs(a.rate - rate), Math.abs(b.rate - rate)))
                .orElseThrow();
        return new Run(rate, closest.p50, closest.p99);
    }

    private static void pair(List<FederationResults.Row> rows, String name, Run floor, Run ringbus) {
        rows.add(new FederationResults.Row(name, "jnats", floor.rate, floor.p50, floor.p99, Double.NaN));
        rows.add(new FederationResults.Row(name, "ringbus", ringbus.rate, ringbus.p50, ringbus.p99,
                ringbus.rate / floor.rate));
    }

    private byte[] stamped() {
        byte[] data = new byte[payload];
        ByteBuffer.wrap(data).putLong(0, System.nanoTime());
        return data;
    }

    /** Records latency from the stamp and counts; every receiver must see every message. */
    private static final class Receiver {
        final Histogram latency = new Histogram(3);
        final CountDownLatch done;
        final AtomicLong count = new AtomicLong();
        final long expected;

        Receiver(long expected) {
            this.expected = expected;
            this.done = new CountDownLatch(1);
        }

        void accept(byte[] data) {
            long micros = (System.nanoTime() - ByteBuffer.wrap(data).getLong(0)) / 1_000;
            synchronized (latency) {
                latency.recordValue(Math.max(0, micros));
            }
            if (count.incrementAndGet() == expected) {
                done.countDown();
            }
        }
    }

    private Run measure(List<Receiver> receivers, Consumer<byte[]> publish) throws InterruptedException {
        long start = System.nanoTime();
        for (long i = 0; i < messages; i++) {
            publish.accept(stamped());
        }
        for (Receiver r : receivers) {
            if (!r.done.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a receiver got " + r.count.get() + " of " + messages);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Histogram all = new Histogram(3);
        for (Receiver r : receivers) {
            all.add(r.latency);
        }
        return new Run(messages / seconds, all.getValueAtPercentile(50), all.getValueAtPercentile(99));
    }

    private Run jnatsFanOut(String url, int fanOut) throws Exception {
        List<Connection> connections = new ArrayList<>();
        try {
            Connection pub = Nats.connect(url);
            connections.add(pub);
            List<Receiver> receivers = new ArrayList<>();
            for (int i = 0; i < fanOut; i++) {
                Connection sub = Nats.connect(url);
                connections.add(sub);
                Receiver r = new Receiver(messages);
                receivers.add(r);
                Dispatcher d = sub.createDispatcher(m -> r.accept(m.getData()));
                d.setPendingLimits(-1, -1);
                d.subscribe("bench.x");
                sub.flush(Duration.ofSeconds(5));
            }
            return measure(receivers, data -> pub.publish("bench.x", data));
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private Broker node(String name, String url) {
        Broker broker = Broker.builder().name(name).federation(NatsFederation.builder(url)
                .pendingLimits(Long.MAX_VALUE, Long.MAX_VALUE).build()).build();
        broker.registerSubject("bench.>", Scope.PUBLIC);
        return broker;
    }

    private Run ringbusFanOut(String url, int fanOut) throws Exception {
        List<Broker> nodes = new ArrayList<>();
        try {
            Broker publisher = node("publisher", url);
            nodes.add(publisher);
            List<Receiver> receivers = new ArrayList<>();
            for (int i = 0; i < fanOut; i++) {
                Broker node = node("receiver-" + i, url);
                nodes.add(node);
                Receiver r = new Receiver(messages);
                receivers.add(r);
                node.subscribe("bench.x", m -> r.accept((byte[]) m.payload()),
                        SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
            }
            Thread.sleep(300); // the receivers' NATS subscriptions are in place
            return measure(receivers, data -> publisher.publish("bench.x", data));
        } finally {
            for (Broker b : nodes) {
                b.close();
            }
        }
    }

    private Run jetStreamPublish(String url) throws Exception {
        Connection c = Nats.connect(url);
        try {
            String stream = "JS" + System.nanoTime();
            c.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream)
                    .subjects("jsbench." + stream + ".>").storageType(StorageType.File).build());
            JetStream js = c.jetStream();
            ArrayDeque<CompletableFuture<PublishAck>> outstanding = new ArrayDeque<>();
            Histogram latency = new Histogram(3);
            long start = System.nanoTime();
            for (long i = 0; i < messages; i++) {
                if (outstanding.size() >= window) {
                    outstanding.poll().join();
                }
                long sent = System.nanoTime();
                outstanding.add(js.publishAsync("jsbench." + stream + ".x", stamped()).whenComplete((a, e) -> {
                    synchronized (latency) {
                        latency.recordValue((System.nanoTime() - sent) / 1_000);
                    }
                }));
            }
            outstanding.forEach(CompletableFuture::join);
            double seconds = (System.nanoTime() - start) / 1e9;
            c.jetStreamManagement().deleteStream(stream);
            return new Run(messages / seconds, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99));
        } finally {
            c.close();
        }
    }

    private Run ringbusDurable(String url) throws Exception {
        String stream = "RB" + System.nanoTime();
        try (Broker broker = Broker.builder().storage(JetStreamStorage.builder().servers(url).connect()).build()) {
            broker.registerStream(io.ringbus.core.StreamConfig.of("rbbench." + stream + ".>").withName(stream),
                    Scope.PUBLIC);
            ArrayDeque<CompletableFuture<io.ringbus.core.PublishAck>> outstanding = new ArrayDeque<>();
            Histogram latency = new Histogram(3);
            long start = System.nanoTime();
            String subject = "rbbench." + stream + ".x";
            for (long i = 0; i < messages; i++) {
                if (outstanding.size() >= window) {
                    outstanding.poll().join();
                }
                long sent = System.nanoTime();
                CompletableFuture<io.ringbus.core.PublishAck> ack;
                while ((ack = broker.tryPublishWithAck(subject, null, null, stamped())) == null) {
                    outstanding.poll().join(); // the store's pending bytes are full: wait for the oldest
                }
                outstanding.add(ack.whenComplete((a, e) -> {
                    synchronized (latency) {
                        latency.recordValue((System.nanoTime() - sent) / 1_000);
                    }
                }));
            }
            outstanding.forEach(CompletableFuture::join);
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Run(messages / seconds, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99));
        } finally {
            try {
                Connection c = Nats.connect(url);
                try {
                    c.jetStreamManagement().deleteStream(stream);
                } finally {
                    c.close();
                }
            } catch (Exception e) {
                // best effort: the scratch server is deleted with the run
            }
        }
    }

}
