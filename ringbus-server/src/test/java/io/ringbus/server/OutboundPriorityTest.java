package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A network client's pending output is handed over highest priority first (the
 * {@code Ringbus-Priority} header): an urgent message published behind a backlog the client has not
 * read yet overtakes the part of it still waiting in the server; within a priority, publish order.
 */
@Timeout(60)
class OutboundPriorityTest {
    private static final int ROUTINE = 20_000;
    private static final int SIZE = 1_000;

    @Test
    void anUrgentMessageOvertakesTheBacklogStillWaitingForASlowReader() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.maxPayload(4_096).maxMemory(2L << 30).maxPending(256L << 20)
                .writeDeadline(Duration.ofSeconds(30)));
             RawClient reader = RawClient.connect(server.port(), 8_192);
             RawClient publisher = RawClient.connect(server.port())) {
            reader.handshake();
            reader.send("SUB pub.jobs 1\r\nPING\r\n");
            reader.expectLine("PONG");
            publisher.handshake();
            // 20 MB of routine messages the reader does not read yet: far more than the sockets hold.
            ByteArrayOutputStream routine = new ByteArrayOutputStream();
            for (int i = 0; i < ROUTINE; i++) {
                String payload = String.format("%-" + SIZE + "s", "r" + i);
                routine.writeBytes(("PUB pub.jobs " + SIZE + "\r\n" + payload + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            publisher.send(routine.toByteArray());
            String headers = "NATS/1.0\r\nRingbus-Priority: 9\r\n\r\n";
            String urgent = "urgent";
            publisher.send("HPUB pub.jobs " + headers.length() + " " + (headers.length() + urgent.length()) + "\r\n"
                    + headers + urgent + "\r\nPING\r\n");
            publisher.expectLine("PONG"); // all routed: the backlog waits in the server for the reader
            List<String> received = new ArrayList<>(ROUTINE + 1);
            for (int i = 0; i <= ROUTINE; i++) {
                received.add(reader.readDelivery().text().strip());
            }
            int urgentAt = received.indexOf(urgent);
            // Only what had already left the server's pending chains (the sockets' buffers, Netty's
            // queue, one move) goes before it: a few MB, not the 20 MB of the backlog.
            assertThat(urgentAt).as("position of the urgent message").isBetween(0, ROUTINE / 2);
            List<String> routineOrder = new ArrayList<>(received);
            routineOrder.remove(urgentAt);
            for (int i = 0; i < ROUTINE; i++) {
                assertThat(routineOrder.get(i)).isEqualTo("r" + i);
            }
        }
    }
}
