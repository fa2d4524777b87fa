package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Headers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code ringbus-outbox relay --http-url}: a relay process delivering to a real webhook. */
@Timeout(120)
class RelayCommandSinkTest {
    @RegisterExtension
    final OutboxOnPostgres db = new OutboxOnPostgres();

    @Test
    void relayProcessPostsEveryRowToTheWebhook() throws Exception {
        try (WebhookServer server = new WebhookServer();
             RelayProcess relay = RelayProcess.startWithSink("http", List.of("--http-url", server.uri().toString(),
                     "--max-concurrency", "8", "--parallel-batches", "2"), "--jdbc-url", TestDatabases.PG_URL,
                     "--schema", db.schema(), "--batch-size", "20", "--keep-delivered")) {
            for (int i = 0; i < 100; i++) {
                db.outbox().publish("orders.created", "k" + (i % 10), ("row " + i).getBytes(StandardCharsets.UTF_8),
                        Headers.EMPTY);
            }
            Await.until("100 rows posted", () -> TestDatabases.counts(db.outbox()).delivered() == 100);
            Set<String> ids = server.requests.stream().map(WebhookServer.Request::eventId).collect(Collectors.toSet());
            assertThat(ids).hasSize(100);
            assertThat(server.maxConcurrent.get()).isLessThanOrEqualTo(8);
            assertThat(relay.stop()).isEqualTo(143);
            assertThat(relay.lines()).anyMatch(l -> l.startsWith("relay http stopped: 100 delivered"));
        }
    }

    @Test
    void relayNeedsExactlyOneSink() {
        StringWriter err = new StringWriter();
        CommandLine cli = OutboxMain.commandLine();
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("relay", "--sink", "log", "--http-url", "http://127.0.0.1:1/x");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("exactly one sink");
    }
}
