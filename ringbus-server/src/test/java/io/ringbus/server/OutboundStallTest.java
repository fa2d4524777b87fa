package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscriber that keeps reading, only slower than the publisher, is stalled on, never dropped:
 * the delivering thread waits for it, the ring fills, and the publisher's socket is paused.
 */
@Timeout(60)
class OutboundStallTest {
    private static final int MESSAGES = 20_000;

    @Test
    void aSubscriberSlowerThanThePublisherGetsEverythingAndIsNotDropped() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(b -> b.ringSize(64),
                c -> c.maxPending(65_536).writeDeadline(Duration.ofSeconds(10)));
             RawClient subscriber = RawClient.connect(server.port(), 8_192)) {
            subscriber.handshake();
            subscriber.send("SUB pub.stall 1\r\nPING\r\n");
            assertThat(subscriber.readLine()).isEqualTo("PONG");

            Options options = new Options.Builder().server(server.url()).maxMessagesInOutgoingQueue(MESSAGES * 2)
                    .build();
            Connection publisher = Nats.connect(options);
            try {
                for (int i = 0; i < MESSAGES; i++) {
                    byte[] payload = new byte[200]; // jnats queues the array itself: one per message
                    payload[0] = (byte) i;
                    publisher.publish("pub.stall", payload);
                }
                // Not reading yet: the server's outbound queue for this subscriber fills and the
                // delivering thread stalls. (No flush here: the server answers a PING after the
                // deliveries of the PUBs before it, and those wait for this reader.)
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (server.stats().outboundStalls() == 0 && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(1_000_000);
                }
                assertThat(server.stats().outboundStalls()).as("delivery stalled on the unread subscriber").isPositive();
                // Now read steadily but slowly: a pause every 100 messages.
                for (int i = 0; i < MESSAGES; i++) {
                    RawClient.Delivery delivery = subscriber.readDelivery();
                    assertThat(delivery.subject()).isEqualTo("pub.stall");
                    assertThat(delivery.payload()[0]).isEqualTo((byte) i);
                    if (i % 100 == 0) {
                        LockSupport.parkNanos(1_000_000);
                    }
                }
                publisher.flush(Duration.ofSeconds(30));
            } finally {
                publisher.close();
            }
            ServerStats stats = server.stats();
            assertThat(stats.slowConsumers()).isZero();
            assertThat(stats.outboundStalls()).isPositive();
            assertThat(stats.messagesOut()).isEqualTo(MESSAGES);
        }
    }
}
