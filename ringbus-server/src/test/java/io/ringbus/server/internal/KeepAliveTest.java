package io.ringbus.server.internal;

import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeepAlive}: the server's PINGs every {@code ping_interval}, a stale connection closed
 * after {@code max_pings_out} unanswered, and the client's PING answered behind the deliveries
 * queued for it (a flush barrier, as nats-server). Time is the connection's embedded clock.
 */
class KeepAliveTest {
    private static final Duration PING_INTERVAL = Duration.ofSeconds(10);
    private static final int MAX_PINGS_OUT = 2;

    private EmbeddedServer server;
    private EmbeddedClient client;

    @BeforeEach
    void start() {
        server = new EmbeddedServer(ServerConfig.builder().pingInterval(PING_INTERVAL).maxPingsOut(MAX_PINGS_OUT)
                .build());
        client = server.connect("{\"verbose\":false}");
    }

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void serverPingsOncePerInterval() {
        client.advance(PING_INTERVAL.minusMillis(1));
        assertThat(client.output()).isEmpty();

        client.advance(Duration.ofMillis(1));
        assertThat(client.output()).isEqualTo("PING\r\n");
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void connectionWithMaxPingsOutUnansweredIsStale() {
        for (int i = 0; i < MAX_PINGS_OUT; i++) {
            client.advance(PING_INTERVAL);
            assertThat(client.output()).isEqualTo("PING\r\n");
        }

        client.advance(PING_INTERVAL);

        assertThat(client.output()).isEqualTo("-ERR 'Stale Connection'\r\n");
        assertThat(client.isOpen()).isFalse();
        assertThat(server.context.counters.staleConnections.sum()).isEqualTo(1);
    }

    @Test
    void pongResetsTheCountOfPingsOut() {
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < MAX_PINGS_OUT; i++) {
                client.advance(PING_INTERVAL);
            }
            assertThat(client.output()).isEqualTo("PING\r\n".repeat(MAX_PINGS_OUT));
            client.send("PONG\r\n");
        }

        client.advance(PING_INTERVAL);

        assertThat(client.output()).isEqualTo("PING\r\n");
        assertThat(client.isOpen()).isTrue();
        assertThat(server.context.counters.staleConnections.sum()).isZero();
    }

    @Test
    void clientPingIsAnsweredWithPong() {
        assertThat(client.send("PING\r\n").output()).isEqualTo("PONG\r\n");
        assertThat(client.send("PING\r\nPING\r\n").output()).isEqualTo("PONG\r\nPONG\r\n");
    }

    @Test
    void clientPingIsAnsweredBehindTheDeliveriesAlreadyQueuedForIt() {
        client.send("SUB foo 1\r\n");
        EmbeddedClient publisher = server.connect("{\"verbose\":false}");

        // The MSG is queued for the subscriber, its connection has not written it yet: the PONG
        // must come after it, or a client flushing with PING would miss its messages.
        publisher.send("PUB foo 5\r\nhello\r\n");
        client.send("PING\r\n");

        assertThat(client.output()).isEqualTo("MSG foo 1 5\r\nhello\r\nPONG\r\n");
    }

    @Test
    void ownPublishesComeBeforeThePongOfTheSameRead() {
        client.send("SUB foo 1\r\nPUB foo 2\r\nhi\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("MSG foo 1 2\r\nhi\r\nPONG\r\n");
    }

    @Test
    void noPingsAfterTheConnectionCloses() {
        client.close();
        client.advance(PING_INTERVAL.multipliedBy(MAX_PINGS_OUT + 2));

        assertThat(client.output()).isEmpty();
        assertThat(server.context.counters.staleConnections.sum()).isZero();
    }
}
