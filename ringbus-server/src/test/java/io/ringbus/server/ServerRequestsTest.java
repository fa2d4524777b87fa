package io.ringbus.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ServerRequests} is what the server serves: every API subject it lists is answered (no
 * 404), a subject under the API prefix it does not list gets 404, and every monitoring path it
 * lists is served. The hostile-client harness attacks what this list names, so a request served
 * but not listed would escape it.
 */
class ServerRequestsTest {
    @Test
    void everyListedApiSubjectIsAnsweredAndNoOther() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB _INBOX.api 1\r\n");
            for (String subject : ServerRequests.API_SUBJECTS) {
                client.send("PUB " + subject + " _INBOX.api 2\r\n{}\r\n");
                assertThat(client.readDelivery().text()).as(subject).doesNotContain("\"code\":404");
            }
            client.send("PUB " + ServerRequests.API_PREFIX + "NOT_LISTED _INBOX.api 2\r\n{}\r\n");
            assertThat(client.readDelivery().text()).contains("\"code\":404");
        }
    }

    @Test
    void anApiAnswerIsNeverPublishedToAnApiSubject() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient watcher = RawClient.connect(server.port());
             RawClient client = RawClient.connect(server.port())) {
            watcher.handshake();
            watcher.send("SUB > 1\r\nPING\r\n");
            watcher.expectLine("PONG");
            client.handshake();
            String request = "{\"subject\":\"pub.a\"}";
            client.send("PUB " + ServerRequests.FILTER_API + " " + ServerRequests.FILTER_API + " " + request.length()
                    + "\r\n" + request + "\r\nPING\r\n");
            assertThat(client.readLine()).startsWith("-ERR 'Permissions Violation for Publish to");
            client.expectLine("PONG");
            watcher.send("PING\r\n");
            watcher.expectLine("PONG"); // nothing delivered to '>' before it
        }
    }

    @Test
    void everyListedMonitorPathIsServed() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0))) {
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            for (String path : ServerRequests.MONITOR_PATHS) {
                assertThat(monitor.get(path).statusCode()).as(path).isEqualTo(200);
            }
            assertThat(monitor.get("/not-listed").statusCode()).isEqualTo(404);
            assertThat(monitor.get("/not-listed").body()).contains("/varz").contains("/dashz");
        }
    }
}
