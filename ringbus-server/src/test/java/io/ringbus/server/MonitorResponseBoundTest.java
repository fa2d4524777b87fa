package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A monitoring response is bounded (a thirty-second of the heap, at least 1 MiB): a server at
 * -Xmx128m holding thousands of 2,000-character subscriptions answers {@code /connz?subs=1}
 * and {@code /subsz?subs=1} with 400 naming the bound, instead of building a document of tens of
 * megabytes (which ran it out of memory, and the monitor swallowed the OutOfMemoryError).
 */
@Timeout(120)
class MonitorResponseBoundTest {
    @Test
    void aResponsePastTheBoundIs400AndTheServerStaysUp() {
        try (ForkedServer server = ForkedServer.start("128m");
             RawClient holder = RawClient.connect(server.port())) {
            holder.handshake();
            String pad = "p".repeat(1_990);
            StringBuilder subs = new StringBuilder();
            for (int sid = 1; sid <= 8_000; sid++) {
                subs.append("SUB ").append(pad).append(sid).append(' ').append(sid).append("\r\n");
                if (sid % 500 == 0) {
                    holder.send(subs.append("PING\r\n").toString());
                    subs.setLength(0);
                    for (String line = holder.readLine(); !line.equals("PONG"); line = holder.readLine()) {
                        assertThat(line).startsWith("-ERR 'maximum subscriptions exceeded");
                    }
                }
            }
            for (String path : new String[] {"/connz?subs=1", "/connz?subs=detail", "/subsz?subs=1&limit=100000"}) {
                HttpResponse<String> answer = server.monitor(path);
                assertThat(answer.statusCode()).as(path).isEqualTo(400);
                assertThat(answer.body()).as(path).contains("limit and offset");
            }
            assertThat(server.monitor("/connz").statusCode()).isEqualTo(200);
            assertThat(server.isAlive()).isTrue();
            assertThat(server.log()).noneMatch(line -> line.contains("OutOfMemoryError"));
        }
    }
}
