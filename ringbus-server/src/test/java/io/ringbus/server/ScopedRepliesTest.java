package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Scope;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scopes hold for replies and for the monitor: a reply to a request is data of the requester's
 * scope, and a credential sees on the monitor only what its scope may.
 */
@Timeout(60)
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class ScopedRepliesTest {
    @Test
    void aPublicSubscriberNeverReceivesTheReplyToAPrivateRequest() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c
                .user("edge", "edge-pw", Scope.PUBLIC).user("core", "core-pw", Scope.PRIVATE));
             Connection spy = connect(server, "edge", "edge-pw");
             Connection requester = connect(server, "core", "core-pw");
             Connection responder = connect(server, "edge", "edge-pw")) {
            List<String> stolen = new CopyOnWriteArrayList<>();
            Dispatcher spying = spy.createDispatcher(m -> stolen.add(m.getSubject() + " " + text(m)));
            spying.subscribe("_INBOX.>");
            spying.subscribe(">");
            spying.subscribe("*.>");
            spy.flush(Duration.ofSeconds(5));
            Dispatcher answering = responder.createDispatcher(
                    m -> responder.publish(m.getReplyTo(), "secret-answer".getBytes(StandardCharsets.UTF_8)));
            answering.subscribe("pub.ask");
            responder.flush(Duration.ofSeconds(5));

            Message reply = requester.request("pub.ask", "q".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            assertThat(text(reply)).isEqualTo("secret-answer");
            // The spy sees the PUBLIC request itself, never the reply.
            // A marker published after the reply, by the spy itself: once its dispatcher handled it,
            // it handled everything the server sent it before (flush alone does not wait for the dispatcher).
            responder.flush(Duration.ofSeconds(5));
            spy.publish("pub.marker", "end".getBytes(StandardCharsets.UTF_8));
            Await.until("the spy's dispatcher reached the marker", () -> stolen.contains("pub.marker end"));
            assertThat(stolen).contains("pub.ask q").allMatch(s -> s.startsWith("pub.ask ")
                    || s.equals("pub.marker end"), "only the request");
        }
    }

    @Test
    void theMonitorShowsACredentialOnlyWhatItsScopeMaySee() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0)
                .token("public-token", Scope.PUBLIC).token("root-token", Scope.ROOT));
             Connection root = Nats.connect(new Options.Builder().server(server.url()).token("root-token".toCharArray())
                     .connectionName("root-billing-service").build());
             Connection edge = Nats.connect(new Options.Builder().server(server.url())
                     .token("public-token".toCharArray()).connectionName("edge-app").build())) {
            root.createDispatcher(m -> { }).subscribe("secret.payroll.>");
            edge.createDispatcher(m -> { }).subscribe("pub.visible");
            root.flush(Duration.ofSeconds(5));
            edge.flush(Duration.ofSeconds(5));
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            String publicAuth = "Bearer public-token";
            for (String path : List.of("/connz?subs=detail", "/subsz?subs=1")) {
                HttpResponse<String> seen = monitor.get(path, "Authorization", publicAuth);
                assertThat(seen.statusCode()).isEqualTo(200);
                assertThat(seen.body()).as(path).doesNotContain("secret.payroll").doesNotContain("root-billing-service");
                HttpResponse<String> all = monitor.get(path, "Authorization", "Bearer root-token");
                assertThat(all.body()).as(path + " for ROOT").contains("secret.payroll");
            }
            assertThat(monitor.get("/connz", "Authorization", publicAuth).body()).contains("edge-app");
            assertThat(monitor.get("/metrics", "Authorization", publicAuth).statusCode()).isEqualTo(403);
            assertThat(monitor.get("/dashz", "Authorization", publicAuth).statusCode()).isEqualTo(403);
            assertThat(monitor.get("/metrics", "Authorization", "Bearer root-token").statusCode()).isEqualTo(200);
            HttpResponse<String> health = monitor.get("/healthz");
            assertThat(health.statusCode()).as("/healthz needs no credentials").isEqualTo(200);
            assertThat(monitor.get("/varz").statusCode()).isEqualTo(401);
        }
    }

    private static Connection connect(ServerUnderTest server, String user, String password) throws Exception {
        return Nats.connect(new Options.Builder().server(server.url()).userInfo(user, password).build());
    }

    private static String text(Message m) {
        return new String(m.getData(), StandardCharsets.UTF_8);
    }
}
