package io.ringbus.testsuite.e2e;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.outbox.Outbox;
import io.ringbus.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The two-service kill test's run: an {@link OrderService} and a {@link BillingService}, each in a
 * JVM of its own with its own PostgreSQL schema, and a {@link TransportServer} between them. While
 * the producers commit, one of the three is killed with SIGKILL every {@code killGap} on average
 * (a random instant; each round kills all three in a random order) and started again after a short
 * random pause (the transport on the same port and store). Then the killing stops, the producers
 * stop, everything drains, and the run returns what the databases and the services say.
 */
@SuppressWarnings("try") // jnats' Connection.close throws InterruptedException
final class KillScenario {
    /** The stream between the services. */
    static final String STREAM = "ORDERS";

    /** What is killed. */
    enum Victim { ORDER_SERVICE, BILLING_SERVICE, TRANSPORT }

    /**
     * @param transport  the server between the services
     * @param load       how long the producers commit (the kills happen meanwhile)
     * @param keys       customers (ordering keys)
     * @param partitions billing consumers, each owning {@code keys / partitions} customers
     * @param producers  producer threads in the order service
     * @param rate       orders per second the producers aim at, all together
     * @param killGap    the mean time between two kills (drawn from half to one and a half of it)
     * @param drain      the bound on the drain after the load (a hang, never a speed goal)
     * @param seed       the seed of the kill instants, victims, pauses and customers
     */
    record Settings(TransportServer.Kind transport, Duration load, int keys, int partitions, int producers,
                    double rate, Duration killGap, Duration drain, long seed) {
    }

    /**
     * @param audit           the billing table against the orders table
     * @param kills           SIGKILLs of each victim
     * @param inboxDuplicates redeliveries the billing inbox absorbed (the {@code DUPLICATE} outcomes
     *                        printed by every life of the billing service)
     * @param pubAckDuplicates publishes JetStream answered as duplicates ({@code Nats-Msg-Id}), as
     *                        last printed by each life of the order service (a life's last 500 ms
     *                        are not counted)
     * @param ackTimeouts     acknowledgments of billing with no answer (the message comes again)
     * @param refused         messages the inbox refused (no usable event id)
     * @param streamMessages  messages stored in the stream at the end (more than the orders: a
     *                        redelivered publish stored twice, which the inbox then absorbed)
     * @param deadLetters     outbox rows dead-lettered
     * @param inboxIds        event ids recorded by the billing inbox
     * @param load            how long the producers ran
     */
    record Result(BillingAudit audit, Map<Victim, Integer> kills, long inboxDuplicates, long pubAckDuplicates,
                  long ackTimeouts, long refused, long streamMessages, long deadLetters, long inboxIds, Duration load) {
        /** @return committed orders per second of load */
        double ordersPerSecond() {
            return audit.orders() / (load.toMillis() / 1000.0);
        }

        /** @return the figures as one line */
        String figures() {
            return String.format("%d orders committed (%.0f/s over %d s), commit -> billing p50 %.0f ms, p99 %.0f ms,"
                    + " max %.0f ms; kills %s; duplicates absorbed: %d by the inbox, %d by JetStream (duplicate PubAcks);"
                    + " %d billing acks unanswered; stream holds %d messages", audit.orders(), ordersPerSecond(),
                    load.toSeconds(), audit.p50Millis(), audit.p99Millis(), audit.maxMillis(), kills, inboxDuplicates,
                    pubAckDuplicates, ackTimeouts, streamMessages);
        }
    }

    private final Settings settings;
    private final Path work;
    private final Random random;
    private final Map<Victim, Integer> kills = new EnumMap<>(Victim.class);

    KillScenario(Settings settings, Path work) {
        this.settings = settings;
        this.work = work;
        this.random = new Random(settings.seed());
    }

    /**
     * Runs the scenario in fresh schemas (dropped afterwards) and a fresh store under the work directory.
     *
     * @return what it found
     * @throws Exception when a process or the database fails
     */
    Result run() throws Exception {
        String ordersSchema = E2eTables.uniqueSchema("orders");
        String billingSchema = E2eTables.uniqueSchema("billing");
        E2eTables.create(ordersSchema, billingSchema);
        Path stop = work.resolve("stop-producers");
        try (Outbox outbox = Outbox.builder().jdbcUrl(E2eTables.PG_URL).schema(ordersSchema).maxPoolSize(2).open();
             TransportServer transport = TransportServer.start(settings.transport(), work);
             ServiceProcess billing = new ServiceProcess("billing-service", BillingService.class, "--schema",
                     billingSchema, "--nats", transport.url(), "--stream", STREAM, "--partitions",
                     String.valueOf(settings.partitions()));
             ServiceProcess orders = new ServiceProcess("order-service", OrderService.class, "--schema", ordersSchema,
                     "--nats", transport.url(), "--keys", String.valueOf(settings.keys()), "--partitions",
                     String.valueOf(settings.partitions()), "--producers", String.valueOf(settings.producers()),
                     "--rate", String.valueOf(settings.rate()), "--seed", String.valueOf(settings.seed()),
                     "--stop-file", stop.toString())) {
            createStreamAndConsumers(transport.url());
            billing.start();
            orders.start();
            long started = System.nanoTime();
            killWhileLoaded(transport, orders, billing, started);
            Files.createFile(stop);
            Duration load = Duration.ofNanos(System.nanoTime() - started);
            long streamMessages = drain(transport.url(), ordersSchema, billingSchema, outbox, orders, billing);
            return new Result(BillingAudit.of(ordersSchema, billingSchema), new EnumMap<>(kills),
                    count(billing, "duplicate "), pubAckDuplicates(orders), count(billing, "ack-timeout "),
                    count(billing, "refused "), streamMessages, outbox.counts().dead(),
                    BillingAudit.rows(billingSchema + "." + BillingService.INBOX_TABLE), load);
        } finally {
            E2eTables.drop(ordersSchema, billingSchema);
        }
    }

    private void createStreamAndConsumers(String url) throws Exception {
        try (Connection nats = Nats.connect(url)) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects("orders.>")
                    .storageType(StorageType.File).duplicateWindow(Duration.ofMinutes(2)).build());
            for (int p = 0; p < settings.partitions(); p++) {
                // max_ack_pending 1: the consumer's next message waits for the ack of the one before,
                // so a message a killed billing life did not acknowledge comes again (after ack_wait)
                // before any later one of its keys: the key's order survives the kill.
                jsm.addOrUpdateConsumer(STREAM, ConsumerConfiguration.builder().durable("billing-p" + p)
                        .filterSubject("orders.p" + p + ".>").ackPolicy(AckPolicy.Explicit)
                        .ackWait(Duration.ofSeconds(2)).maxAckPending(1).build());
            }
        }
    }

    private void killWhileLoaded(TransportServer transport, ServiceProcess orders, ServiceProcess billing,
                                 long started) throws Exception {
        long end = started + settings.load().toNanos();
        List<Victim> round = new ArrayList<>();
        while (true) {
            long gap = (long) (settings.killGap().toNanos() * (0.5 + random.nextDouble()));
            if (System.nanoTime() + gap > end) {
                break;
            }
            Thread.sleep(gap / 1_000_000);
            if (round.isEmpty()) {
                round.addAll(List.of(Victim.values()));
                Collections.shuffle(round, random);
            }
            Victim victim = round.removeFirst();
            switch (victim) {
                case ORDER_SERVICE -> orders.kill();
                case BILLING_SERVICE -> billing.kill();
                case TRANSPORT -> transport.kill();
            }
            kills.merge(victim, 1, Integer::sum);
            Thread.sleep(100 + random.nextInt(900));
            switch (victim) {
                case ORDER_SERVICE -> orders.start();
                case BILLING_SERVICE -> billing.start();
                case TRANSPORT -> transport.restart();
            }
        }
        long rest = end - System.nanoTime();
        if (rest > 0) {
            Thread.sleep(rest / 1_000_000);
        }
    }

    /** Waits until every committed order is billed and the stream and consumers are empty; returns the stream's size. */
    private long drain(String url, String ordersSchema, String billingSchema, Outbox outbox, ServiceProcess orders,
                       ServiceProcess billing) throws Exception {
        try (Connection nats = Nats.connect(url)) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            try {
                // An order in its transaction when the stop file came may still commit: wait for
                // the producers' end before the counts can say "drained".
                Await.until("the producers stopped", settings.drain(), () -> orders.lines().getLast()
                        .contains(OrderService.PRODUCERS_STOPPED));
                Await.until("every committed order billed, the outbox and the consumers drained", settings.drain(),
                        () -> drained(jsm, ordersSchema, billingSchema, outbox));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; orders alive " + orders.isAlive() + ", billing alive "
                        + billing.isAlive() + orders.diagnostics() + billing.diagnostics(), e);
            }
            return jsm.getStreamInfo(STREAM).getStreamState().getMsgCount();
        }
    }

    private boolean drained(JetStreamManagement jsm, String ordersSchema, String billingSchema, Outbox outbox) {
        try {
            if (outbox.counts().pending() != 0 || BillingAudit.billedOrders(ordersSchema, billingSchema)
                    != BillingAudit.rows(ordersSchema + ".orders")) {
                return false;
            }
            for (int p = 0; p < settings.partitions(); p++) {
                ConsumerInfo info = jsm.getConsumerInfo(STREAM, "billing-p" + p);
                if (info.getNumPending() != 0 || info.getNumAckPending() != 0) {
                    return false;
                }
            }
            return true;
        } catch (SQLException | IOException | JetStreamApiException e) {
            return false;
        }
    }

    private static long count(ServiceProcess service, String prefix) {
        return service.lines().stream().flatMap(List::stream).filter(l -> l.startsWith(prefix)).count();
    }

    private static long pubAckDuplicates(ServiceProcess orders) {
        long sum = 0;
        for (List<String> life : orders.lines()) {
            for (String line : life.reversed()) {
                if (line.startsWith("stats ")) {
                    sum += Long.parseLong(line.substring(line.indexOf("pubdup=") + "pubdup=".length()));
                    break;
                }
            }
        }
        return sum;
    }
}
