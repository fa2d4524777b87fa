package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The server's one heap budget, {@code max_memory}: the output waiting for all clients together
 * stays within half of it, however many clients each stay below their own stall mark.
 */
@Timeout(60)
class ServerMemoryBudgetTest {
    private static final long MAX_MEMORY = 4L << 20;
    private static final int NON_READERS = 12;
    private static final int MESSAGES = 16_000;
    private static final int SIZE = 1_024;

    @Test
    void outputForAllClientsTogetherStaysWithinTheBudgetAndNonReadersAreCutOff() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(
                c -> c.maxMemory(MAX_MEMORY).writeDeadline(Duration.ofSeconds(1)));
             RawClient reader = RawClient.connect(server.port());
             RawClient publisher = RawClient.connect(server.port())) {
            ServerConfig config = ServerConfig.builder().maxMemory(MAX_MEMORY).build();
            assertThat(config.outboundBudget()).isEqualTo(MAX_MEMORY / 2);
            assertThat(config.effectiveMaxPending()).isEqualTo(MAX_MEMORY / 4);
            assertThat(config.maxInputBuffer()).isEqualTo(1L << 20);
            // Each non-reader alone stalls at an eighth of max_memory (half its max_pending):
            // twelve of them would hold 6 MiB without the server-wide bound of 2 MiB.
            List<RawClient> nonReaders = new ArrayList<>();
            try {
                for (int i = 0; i < NON_READERS; i++) {
                    RawClient client = RawClient.connect(server.port(), 8_192);
                    nonReaders.add(client);
                    client.handshake();
                    client.send("SUB pub.mem 1\r\nPING\r\n");
                    client.expectLine("PONG");
                }
                reader.handshake();
                reader.send("SUB pub.mem 1\r\nPING\r\n");
                reader.expectLine("PONG");
                publisher.handshake();

                AtomicLong highest = new AtomicLong();
                Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        highest.accumulateAndGet(server.server.outboundBuffered(), Math::max);
                        Thread.onSpinWait();
                    }
                });
                AtomicReference<Throwable> sendFailure = new AtomicReference<>();
                // From a thread of its own: the server stops reading the publisher while over budget.
                Thread sending = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < MESSAGES; i++) {
                            byte[] payload = new byte[SIZE];
                            Arrays.fill(payload, (byte) ('a' + i % 26));
                            publisher.send(("PUB pub.mem " + SIZE + "\r\n").getBytes(StandardCharsets.US_ASCII));
                            publisher.send(payload);
                            publisher.send("\r\n");
                        }
                    } catch (Throwable e) {
                        sendFailure.set(e);
                    }
                });
                for (int i = 0; i < MESSAGES; i++) {
                    RawClient.Delivery delivery = reader.readDelivery();
                    assertThat(delivery.payload()).as("message %d", i).hasSize(SIZE);
                    assertThat(delivery.payload()[0]).as("message %d in order", i).isEqualTo((byte) ('a' + i % 26));
                }
                sending.join();
                sampler.interrupt();
                assertThat(sendFailure.get()).isNull();
                // The bound plus what deliveries already under way add (a buffer step per client).
                assertThat(highest.get()).as("output waiting for all clients")
                        .isGreaterThan(MAX_MEMORY / 4)
                        .isLessThanOrEqualTo(config.outboundBudget() + (NON_READERS + 1) * 64L * 1024);
                // They never read: each is cut off after the write deadline, alone.
                assertThat(server.stats().slowConsumers()).isEqualTo(NON_READERS);
                assertThat(server.stats().messagesIn()).isEqualTo(MESSAGES);
            } finally {
                for (RawClient client : nonReaders) {
                    client.close();
                }
            }
        }
    }

    @Test
    void maxMemoryBelowFourMebibytesIsRefusedWithItsValue() {
        assertThatThrownBy(() -> ServerConfig.builder().maxMemory(1 << 20))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxMemory must be >= 4194304: maxMemory=1048576");
    }

    @Test
    void anExplicitInputBufferAndMaxPendingAreKeptWithinTheBudget() {
        ServerConfig config = ServerConfig.builder().maxMemory(64L << 20).maxInputBuffer(3L << 20)
                .maxPending(128L << 20).build();
        assertThat(config.maxInputBuffer()).isEqualTo(3L << 20);
        assertThat(config.maxPending()).isEqualTo(128L << 20);
        assertThat(config.effectiveMaxPending()).isEqualTo(16L << 20);
    }
}
