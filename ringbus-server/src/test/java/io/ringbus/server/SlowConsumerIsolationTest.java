package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Subscribers that never read affect only themselves (issue 9): 20 of them while one publisher
 * sends 600 x 64 KiB. Before, the one dispatch thread waited {@code write_deadline} for each in
 * turn and the whole server froze; now they are cut off at their write deadline, the publisher
 * is slowed at most that long, a subscriber that reads gets everything, and a client on another
 * subject keeps its round-trip time.
 */
@Timeout(120)
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class SlowConsumerIsolationTest {
    private static final Duration WRITE_DEADLINE = Duration.ofSeconds(3);

    @Test
    void subscribersThatNeverReadStallNobodyElse() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.maxPayload(128 << 10).maxPending(4 << 20)
                .writeDeadline(WRITE_DEADLINE))) {
            List<RawClient> sleepers = new ArrayList<>();
            RawClient reader = RawClient.connect(server.port());
            RawClient other = RawClient.connect(server.port());
            try {
                for (int i = 0; i < 20; i++) {
                    RawClient sleeper = RawClient.connect(server.port(), 4096);
                    sleeper.handshake();
                    sleeper.send("SUB pub.fanout 1\r\nPING\r\n");
                    sleeper.expectLine("PONG");
                    sleepers.add(sleeper); // and never reads again
                }
                reader.handshake();
                reader.send("SUB pub.fanout 1\r\nPING\r\n");
                reader.expectLine("PONG");
                other.handshake();
                AtomicInteger read = new AtomicInteger();
                Thread reading = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 600; i++) {
                        assertThat(reader.readDelivery().payload()).hasSize(64 << 10);
                        read.incrementAndGet();
                    }
                });
                AtomicBoolean publishing = new AtomicBoolean(true);
                AtomicLong worstRoundTrip = new AtomicLong();
                AtomicInteger roundTrips = new AtomicInteger();
                Thread pinging = Thread.ofPlatform().start(() -> {
                    while (publishing.get()) {
                        long start = System.nanoTime();
                        other.assertRoundTrip("pub.unrelated", true);
                        worstRoundTrip.accumulateAndGet(System.nanoTime() - start, Math::max);
                        roundTrips.incrementAndGet();
                    }
                });
                long start = System.nanoTime();
                try (Connection publisher = Nats.connect(server.url())) {
                    byte[] payload = new byte[64 << 10];
                    for (int i = 0; i < 600; i++) {
                        publisher.publish("pub.fanout", payload);
                    }
                    publisher.flush(Duration.ofSeconds(60));
                }
                long publishNanos = System.nanoTime() - start;
                reading.join(60_000);
                publishing.set(false);
                pinging.join(30_000);

                assertThat(read.get()).as("the subscriber that reads gets every message").isEqualTo(600);
                assertThat(server.stats().slowConsumers()).as("every sleeper cut off, counted").isEqualTo(20);
                assertThat(roundTrips.get()).isPositive();
                // Bounds far from the old behaviour (a freeze of >= 20 x write_deadline) yet loose
                // enough for a busy 2-core machine.
                // Loose bounds for a loaded 2-core machine running the whole suite, yet far from
                // what they guard against: one dispatch thread waiting out each sleeper's deadline
                // in turn froze everyone for >= 20 x write_deadline.
                assertThat(Duration.ofNanos(worstRoundTrip.get())).as("unrelated client's worst round trip")
                        .isLessThan(WRITE_DEADLINE.multipliedBy(2));
                assertThat(Duration.ofNanos(publishNanos)).as("publisher slowed by about one write deadline, not 20")
                        .isLessThan(WRITE_DEADLINE.multipliedBy(10));
            } finally {
                for (RawClient sleeper : sleepers) {
                    sleeper.close();
                }
                reader.close();
                other.close();
            }
        }
    }
}
