package io.ringbus.testsuite.e2e;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.ringbus.outbox.Inbox;
import io.ringbus.outbox.InboxMessage;
import io.ringbus.outbox.InboxOutcome;
import io.ringbus.outbox.InboxResult;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeoutException;

/**
 * The billing service, run in a JVM of its own by {@link KillScenario} and killed with SIGKILL at
 * random: one thread per partition pulls from the durable consumer {@code billing-p<k>} (explicit
 * ack, {@code max_ack_pending} 1) and applies each order through the {@link Inbox}: the billing row
 * and the event id commit in one transaction, and the message is acknowledged with {@code ackSync}
 * only after that commit. Every {@value #LOST_ACK_EVERY}th applied message's ack is dropped after
 * the commit, as a lost ack, so that redeliveries reach the inbox in every run.
 *
 * <p>Arguments: {@code --schema --nats --stream --partitions}. Prints {@code billing-service
 * started}, {@code duplicate <eventId>} for each redelivery the inbox absorbed, {@code refused ...}
 * and {@code ack-timeout <eventId>} (the message will come again).
 */
final class BillingService {
    /** The inbox's table in the billing schema. */
    static final String INBOX_TABLE = "billing_inbox";
    /**
     * Every this many applied messages (per life) the ack is dropped after the commit, as a lost ack
     * would be: the message comes again after its ack wait and the inbox must absorb it, so every
     * run has redeliveries to absorb, whatever the kills' timing.
     */
    static final int LOST_ACK_EVERY = 150;
    private static final java.util.concurrent.atomic.AtomicLong APPLIED = new java.util.concurrent.atomic.AtomicLong();

    private BillingService() {
    }

    /**
     * Runs the service until killed.
     *
     * @param args the arguments named in the class comment
     * @throws Exception when the database or the transport cannot be opened
     */
    public static void main(String[] args) throws Exception {
        ServiceArgs a = new ServiceArgs(args);
        int partitions = a.integer("partitions");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(E2eTables.PG_URL);
        config.setMaximumPoolSize(partitions + 1);
        HikariDataSource db = new HikariDataSource(config);
        Inbox inbox = Inbox.builder().schema(a.text("schema")).table(INBOX_TABLE).open(db);
        io.nats.client.Connection nats = NatsConnect.open(a.text("nats"), "billing-service");
        String billing = a.text("schema") + ".billing";
        for (int p = 0; p < partitions; p++) {
            String durable = "billing-p" + p;
            Thread.ofPlatform().name(durable).start(() -> consume(nats, a.text("stream"), durable, db, inbox, billing));
        }
        System.out.println("billing-service started");
    }

    private static void consume(io.nats.client.Connection nats, String stream, String durable, HikariDataSource db,
                                Inbox inbox, String billing) {
        JetStreamSubscription subscription = null;
        while (true) {
            try {
                if (subscription == null) {
                    subscription = nats.jetStream().subscribe(null, PullSubscribeOptions.bind(stream, durable));
                }
                // iterate, not fetch: with max_ack_pending 1 the next message comes only after the
                // ack, and iterate hands each over as it arrives.
                Iterator<Message> batch = subscription.iterate(50, Duration.ofSeconds(1));
                while (batch.hasNext()) {
                    apply(batch.next(), db, inbox, billing);
                }
            } catch (IOException | JetStreamApiException | SQLException | RuntimeException e) {
                System.err.println(durable + ": " + e);
                unsubscribe(subscription);
                subscription = null;
                sleep();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void apply(Message message, HikariDataSource db, Inbox inbox, String billing)
            throws SQLException, InterruptedException {
        InboxMessage event = InboxMessage.of(message);
        InboxResult result;
        try (Connection c = db.getConnection()) {
            result = inbox.process(c, event, tx -> {
                try (PreparedStatement insert = tx.prepareStatement("INSERT INTO " + billing
                        + " (order_id, customer) VALUES (?, ?)")) {
                    insert.setLong(1, Long.parseLong(event.eventId()));
                    insert.setString(2, event.key());
                    insert.executeUpdate();
                }
            });
        } catch (SQLException e) {
            message.nak(); // rolled back: let it come again
            throw e;
        }
        if (result.outcome() == InboxOutcome.REFUSED) {
            System.out.println("refused " + result.reason());
            message.term();
            return;
        }
        if (result.outcome() == InboxOutcome.DUPLICATE) {
            System.out.println("duplicate " + result.eventId());
        } else if (APPLIED.incrementAndGet() % LOST_ACK_EVERY == 0) {
            System.out.println("lost-ack " + result.eventId());
            return; // committed, never acknowledged: it comes again after ack_wait
        }
        try {
            message.ackSync(Duration.ofSeconds(2)); // after the commit
        } catch (TimeoutException e) {
            System.out.println("ack-timeout " + result.eventId());
        }
    }

    private static void unsubscribe(JetStreamSubscription subscription) {
        if (subscription != null) {
            try {
                subscription.unsubscribe();
            } catch (RuntimeException gone) {
                // the connection is down or the subscription already gone
            }
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
