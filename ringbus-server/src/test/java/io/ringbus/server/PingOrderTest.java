package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients use PING/PONG as a barrier ("flush"): as with nats-server, the PONG comes after the
 * messages that the same connection's earlier PUBs delivered to it.
 */
@Timeout(30)
class PingOrderTest {

    @Test
    void pongFollowsTheDeliveriesOfEarlierPublishes() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.order 1\r\nPING\r\n");
            assertThat(client.readLine()).isEqualTo("PONG");
            for (int round = 0; round < 200; round++) {
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < 5; i++) {
                    batch.append("PUB pub.order 3\r\nm").append(i).append(i).append("\r\n");
                }
                client.send(batch.append("PING\r\n").toString());
                for (int i = 0; i < 5; i++) {
                    String line = client.readLine();
                    assertThat(line).as("round %d, message %d", round, i).startsWith("MSG pub.order 1 3");
                    assertThat(client.readLine()).isEqualTo("m" + i + i);
                }
                assertThat(client.readLine()).isEqualTo("PONG");
            }
        }
    }
}
