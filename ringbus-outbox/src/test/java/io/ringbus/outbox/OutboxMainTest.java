package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Headers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/**
 * The {@code ringbus-outbox} command line, run in this JVM through {@link OutboxMain#commandLine()}
 * against the machine's PostgreSQL (a schema per test) and an in-memory H2 database. Dead letters
 * come from a real relay whose sink refuses every row permanently.
 */
@Timeout(60)
class OutboxMainTest {
    /** The databases each test runs against. */
    enum Db { POSTGRESQL, H2 }

    private final String schema = TestDatabases.uniqueSchema();
    private final String h2Url = TestDatabases.h2Url();
    private final List<Outbox> outboxes = new ArrayList<>();
    private Db db = Db.H2;

    @AfterEach
    void dropDatabase() throws SQLException {
        outboxes.forEach(Outbox::close);
        if (db == Db.POSTGRESQL) {
            TestDatabases.dropPgSchema(schema);
        }
    }

    /** What one command printed and returned. */
    record Run(int exitCode, String out, String err) {
    }

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--jdbc-url", db == Db.POSTGRESQL ? TestDatabases.PG_URL : h2Url, "--schema", schema));
        return cliRaw(all.toArray(new String[0]));
    }

    private static Run cliRaw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = OutboxMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = commandLine.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private Outbox open(Db database) throws SQLException {
        db = database;
        Outbox outbox = Outbox.builder().jdbcUrl(database == Db.POSTGRESQL ? TestDatabases.PG_URL : h2Url)
                .schema(schema).open();
        outboxes.add(outbox);
        return outbox;
    }

    /** Publishes rows and lets a relay whose sink refuses everything turn them into dead letters. */
    private static List<Long> deadLetters(Outbox outbox, int count) throws SQLException {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(outbox.publish("orders.created", "order-" + i, ("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    Headers.of("Trace", "t-" + i)));
        }
        RecordingSink sink = new RecordingSink().answer(e -> CompletableFuture.failedFuture(
                new PermanentDeliveryException("HTTP 410 Gone for row " + e.id())));
        relayUntil(outbox, sink, count + " dead letters", () -> counts(outbox).dead() == count);
        return ids;
    }

    /** Runs a relay until a condition holds, then closes it (its batch committed). */
    private static void relayUntil(Outbox outbox, OutboxSink sink, String what, BooleanSupplier condition) {
        Relay relay = outbox.relay().deleteDelivered(false).sink(sink).pollInterval(Duration.ofMillis(20)).start();
        try {
            Await.until(what, condition);
        } finally {
            relay.close();
        }
    }

    private static OutboxCounts counts(Outbox outbox) {
        try {
            return outbox.counts();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void deadListShowsEachDeadLetterWithItsAttemptsAndLastError(Db database) throws Exception {
        List<Long> ids = deadLetters(open(database), 3);
        Run run = cli("dead", "list");
        assertThat(run.exitCode()).as(run.err()).isZero();
        String[] lines = run.out().strip().split("\n");
        assertThat(lines).hasSize(4);
        assertThat(lines[0]).contains("ID", "SUBJECT", "KEY", "ATTEMPTS", "DEAD AT", "LAST ERROR");
        for (int i = 0; i < 3; i++) {
            assertThat(lines[i + 1].split("\\s+", 5)).startsWith(String.valueOf(ids.get(i)), "orders.created",
                    "order-" + i, "1");
            assertThat(lines[i + 1]).contains("HTTP 410 Gone for row " + ids.get(i));
        }

        Run page = cli("dead", "list", "--after", String.valueOf(ids.get(0)), "--limit", "1");
        assertThat(page.out()).contains("order-1").doesNotContain("order-0").doesNotContain("order-2")
                .contains("dead list --after " + ids.get(1));
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void deadInspectShowsAllFieldsWithTextOrBase64Payload(Db database) throws Exception {
        Outbox outbox = open(database);
        long text = deadLetters(outbox, 1).get(0);
        byte[] binary = {0, 1, 2, (byte) 0xff, (byte) 0xfe, 10};
        long bin = outbox.publish("images.raw", null, binary, Headers.EMPTY);
        RecordingSink refuse = new RecordingSink().answer(e -> CompletableFuture.failedFuture(
                new PermanentDeliveryException("HTTP 415")));
        relayUntil(outbox, refuse, "second dead letter", () -> counts(outbox).dead() == 2);

        Run shown = cli("dead", "inspect", String.valueOf(text));
        assertThat(shown.exitCode()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("id          " + text, "subject     orders.created", "key         order-0",
                "attempts    1", "dead at", "created at", "HTTP 410 Gone for row " + text, "Trace: t-0",
                "UTF-8 text:\n{\"order\":0}");

        Run raw = cli("dead", "inspect", String.valueOf(bin));
        assertThat(raw.exitCode()).as(raw.err()).isZero();
        assertThat(raw.out()).contains("key         -", "6 bytes, base64:\n" + Base64.getEncoder().encodeToString(binary),
                "HTTP 415");
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void deadRetryMakesRowsPendingAgainAndNamesIdsThatAreNotDead(Db database) throws Exception {
        Outbox outbox = open(database);
        List<Long> ids = deadLetters(outbox, 3);
        long delivered = outbox.publish("orders.paid", null, new byte[] {1}, Headers.EMPTY);

        Run one = cli("dead", "retry", String.valueOf(ids.get(0)));
        assertThat(one.exitCode()).as(one.err()).isZero();
        assertThat(one.out()).contains("retried " + ids.get(0));
        assertThat(outbox.counts()).isEqualTo(new OutboxCounts(2, 0, 2));
        assertThat(outbox.deadLetters().inspect(ids.get(0))).isEmpty();

        Run missing = cli("dead", "retry", String.valueOf(ids.get(1)), "987654321", String.valueOf(delivered));
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.out()).contains("retried " + ids.get(1));
        assertThat(missing.err()).contains("not a dead letter: ids 987654321, " + delivered)
                .doesNotContain("\tat ");
        assertThat(outbox.counts()).isEqualTo(new OutboxCounts(3, 0, 1));

        Run all = cli("dead", "retry", "--all");
        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(all.out()).contains("retried 1 dead letters");
        assertThat(outbox.counts()).isEqualTo(new OutboxCounts(4, 0, 0));

        // Pending again means delivered by the next relay.
        RecordingSink sink = new RecordingSink();
        relayUntil(outbox, sink, "retried rows delivered", () -> counts(outbox).delivered() == 4);
        assertThat(sink.received).extracting(OutboxEvent::id).containsAll(ids);
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void deadPurgeDeletesDeadLettersAndNamesIdsThatAreNotDead(Db database) throws Exception {
        Outbox outbox = open(database);
        List<Long> ids = deadLetters(outbox, 3);

        Run one = cli("dead", "purge", String.valueOf(ids.get(1)));
        assertThat(one.exitCode()).as(one.err()).isZero();
        assertThat(one.out()).contains("purged " + ids.get(1));
        assertThat(outbox.deadLetters().list(0, 10)).extracting(d -> d.event().id()).containsExactly(ids.get(0), ids.get(2));

        Run again = cli("dead", "purge", String.valueOf(ids.get(1)));
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("not a dead letter").contains("id " + ids.get(1)).doesNotContain("\tat ");

        Run all = cli("dead", "purge", "--all");
        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(all.out()).contains("purged 2 dead letters");
        assertThat(outbox.counts()).isEqualTo(new OutboxCounts(0, 0, 0));
        assertThat(cli("dead", "list").out()).contains("no dead letters");
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void deadInspectOfAnIdThatIsNotDeadFailsNamingIt(Db database) throws Exception {
        open(database);
        Run run = cli("dead", "inspect", "424242");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("not a dead letter: id 424242").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void statusPrintsPendingDeliveredAndDeadCounts(Db database) throws Exception {
        Outbox outbox = open(database);
        deadLetters(outbox, 2);
        RecordingSink sink = new RecordingSink();
        for (int i = 0; i < 3; i++) {
            outbox.publish("a.b", null, new byte[] {1}, Headers.EMPTY);
        }
        relayUntil(outbox, sink, "3 delivered", () -> counts(outbox).delivered() == 3);
        outbox.publish("a.b", null, new byte[] {1}, Headers.EMPTY);

        Run run = cli("status");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("pending   1\n", "delivered 3\n", "dead      2\n", schema + ".ringbus_outbox");
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void migrateCreatesTheSchemaAndIsIdempotent(Db database) throws Exception {
        db = database;
        Run before = cli("status");
        assertThat(before.exitCode()).isEqualTo(1);
        assertThat(before.err()).contains("no outbox schema in " + schema + "; run `ringbus-outbox migrate`")
                .doesNotContain("\tat ");

        Run first = cli("migrate");
        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.out()).contains(schema + ".ringbus_outbox").contains("schema version 3");
        Outbox outbox = open(database);
        outbox.publish("a.b", null, new byte[] {1}, Headers.EMPTY);

        Run second = cli("migrate");
        assertThat(second.exitCode()).as(second.err()).isZero();
        assertThat(second.out()).isEqualTo(first.out());
        assertThat(outbox.counts()).isEqualTo(new OutboxCounts(1, 0, 0));
        assertThat(cli("status").out()).contains("pending   1");
    }

    @Test
    void usageErrorsExitWith2() throws Exception {
        open(Db.H2);
        assertThat(cli("dead").exitCode()).isEqualTo(2);
        Run neither = cli("dead", "retry");
        assertThat(neither.exitCode()).isEqualTo(2);
        assertThat(neither.err()).contains("give dead letter ids or --all, not neither");
        Run both = cli("dead", "purge", "1", "--all");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("not both");
        assertThat(cli("dead", "inspect", "seven").err()).contains("seven");
        assertThat(cli("frobnicate").exitCode()).isEqualTo(2);
        Run badDuration = cli("relay", "--sink", "log", "--poll-interval", "soon");
        assertThat(badDuration.exitCode()).isEqualTo(2);
        assertThat(badDuration.err()).contains("not a duration").contains("soon");
        Run noSink = cli("relay");
        assertThat(noSink.exitCode()).isEqualTo(2);
        assertThat(noSink.err()).contains("--sink log");
    }

    @Test
    void aBadJdbcUrlFailsWithExitCode1NamingIt() {
        Run run = cliRaw("status", "--jdbc-url", "jdbc:mysql://db.example/app");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("jdbc:mysql://db.example/app").doesNotContain("\tat ");
        Run badSchema = cliRaw("status", "--jdbc-url", h2Url, "--schema", "Drop Table");
        assertThat(badSchema.exitCode()).isEqualTo(1);
        assertThat(badSchema.err()).contains("schema=Drop Table");
    }

    @Test
    void anUnreachableDatabaseFailsWithExitCode1NamingTheUrl() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/nowhere?user=postgres&password=secret";
        Run run = cliRaw("dead", "list", "--jdbc-url", url, "--connect-timeout", "500ms");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("cannot open the outbox").contains("127.0.0.1:" + port + "/nowhere")
                .contains("refused").doesNotContain("secret").doesNotContain("\tat ");
        assertThat(run.err().strip().lines()).hasSize(1);
    }

    @Test
    void helpListsTheSubcommandsAndTheDatabaseOptions() {
        Run help = cliRaw("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("relay", "status", "migrate", "dead");
        Run relayHelp = cliRaw("relay", "--help");
        assertThat(relayHelp.out()).contains("--jdbc-url", "--user", "--password", "--schema", "--table", "--sink",
                "--batch-size", "--poll-interval", "--max-attempts", "--keep-delivered");
        assertThat(cliRaw("dead", "list", "--help").out()).contains("--jdbc-url", "--after", "--limit");
    }
}
