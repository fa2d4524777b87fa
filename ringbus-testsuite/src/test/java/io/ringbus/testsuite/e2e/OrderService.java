package io.ringbus.testsuite.e2e;

import io.ringbus.outbox.JetStreamSink;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The order service, run in a JVM of its own by {@link KillScenario} and killed with SIGKILL at
 * random: producers commit an order row and its outbox event in one transaction, paced to a total
 * rate, keyed by customer; a relay in the same process delivers the outbox to JetStream through a
 * {@link JetStreamSink} ({@code Nats-Msg-Id} = event id; a row is settled only after its PubAck).
 *
 * <p>An order's id is its outbox row id: the outbox takes a key's ids in commit order, so the
 * billing side can check per-key order by id. The event goes to {@code orders.p<k>.created}, where
 * {@code k} is the customer's partition (each partition has one billing consumer).
 *
 * <p>Arguments: {@code --schema --nats --keys --partitions --producers --rate --seed --stop-file}.
 * Prints {@code order-service started}, then every 500 ms {@code stats committed=N pubdup=M}; the
 * producers stop once the stop file exists (the relay goes on draining), and then it prints
 * {@value #PRODUCERS_STOPPED}.
 */
final class OrderService {
    /** Printed once every producer has seen the stop file and returned: no order commits after it. */
    static final String PRODUCERS_STOPPED = "producers stopped";

    private OrderService() {
    }

    /**
     * Runs the service until killed.
     *
     * @param args the arguments named in the class comment
     * @throws Exception when the outbox, relay or connection cannot be opened
     */
    public static void main(String[] args) throws Exception {
        ServiceArgs a = new ServiceArgs(args);
        int producers = a.integer("producers");
        Outbox outbox = Outbox.builder().jdbcUrl(E2eTables.PG_URL).schema(a.text("schema"))
                .maxPoolSize(producers + 6).open();
        io.nats.client.Connection nats = NatsConnect.open(a.text("nats"), "order-service");
        JetStreamSink sink = JetStreamSink.builder(nats).ackTimeout(Duration.ofSeconds(2)).build();
        // Never dead-letter in this test: an outage of the transport is retried until it is back.
        outbox.relay().name("order-relay").sink(sink)
                .retryPolicy(new RetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(50), Duration.ofSeconds(1), 0.2))
                .start();
        LongAdder committed = new LongAdder();
        Path stop = Path.of(a.text("stop-file"));
        long intervalNanos = producers == 0 ? 0 : (long) (TimeUnit.SECONDS.toNanos(1) * producers / a.decimal("rate"));
        CountDownLatch running = new CountDownLatch(producers);
        for (int p = 0; p < producers; p++) {
            Random random = new Random(a.integer("seed") * 31L + p);
            String orders = a.text("schema") + ".orders";
            Thread.ofPlatform().name("producer-" + p).start(() -> {
                produce(outbox, orders, random, a.integer("keys"), a.integer("partitions"), intervalNanos, stop,
                        committed);
                running.countDown();
            });
        }
        System.out.println("order-service started");
        boolean stopped = false;
        while (true) {
            System.out.println("stats committed=" + committed.sum() + " pubdup=" + sink.duplicates());
            if (!stopped && running.getCount() == 0) {
                stopped = true;
                System.out.println(PRODUCERS_STOPPED);
            }
            Thread.sleep(500);
        }
    }

    private static void produce(Outbox outbox, String orders, Random random, int keys, int partitions,
                                long intervalNanos, Path stop, LongAdder committed) {
        long next = System.nanoTime();
        while (!Files.exists(stop)) {
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            } else if (wait < -TimeUnit.SECONDS.toNanos(1)) {
                next = System.nanoTime(); // after a stall (the database busy), no burst to catch up
            }
            int customer = random.nextInt(keys);
            String key = String.format("c%03d", customer);
            try {
                commitOrder(outbox, orders, key, "orders.p" + (customer % partitions) + ".created");
                committed.increment();
            } catch (SQLException e) {
                System.err.println("order not committed (" + key + "): " + e);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }

    private static void commitOrder(Outbox outbox, String orders, String key, String subject) throws SQLException {
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                // The append first: it takes the key's lock, so the row id (= the order id) follows
                // the key's commit order.
                long id = outbox.append(c, subject, key, key.getBytes(StandardCharsets.UTF_8));
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + orders + " (id, customer)"
                        + " VALUES (?, ?)")) {
                    insert.setLong(1, id);
                    insert.setString(2, key);
                    insert.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }
}
