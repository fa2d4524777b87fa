package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Which database the {@code ringbus-outbox} command line uses, and what it says about one without
 * the outbox (issue 28): there is no default database (a command run without {@code --jdbc-url}
 * or {@code RINGBUS_OUTBOX_JDBC_URL} fails in one line and writes nothing where it runs), and
 * every command that reads the outbox answers a database without its schema with
 * "no outbox schema in ...; run `ringbus-outbox migrate` ...", creating nothing. Against the machine's
 * PostgreSQL, a fresh schema per test; the first two tests run the command line as a process of
 * its own, in an empty directory, with an environment the test controls.
 */
@Timeout(120)
class OutboxMainDatabaseTest {
    private final String schema = TestDatabases.uniqueSchema();

    @TempDir
    Path workDir;

    @AfterEach
    void dropSchema() throws SQLException {
        TestDatabases.dropPgSchema(schema);
    }

    /** What one process printed and returned. */
    record Run(int exitCode, String out, String err) {
    }

    @Test
    void withoutAUrlEveryCommandFailsInOneLineNamingTheOptionAndTheVariableAndWritesNothing() throws Exception {
        for (String[] command : List.of(new String[] {"status"}, new String[] {"migrate"},
                new String[] {"dead", "list"}, new String[] {"relay", "--sink", "log"})) {
            Run run = process(Map.of(), command);
            assertThat(run.exitCode()).as(String.join(" ", command) + ": " + run).isEqualTo(1);
            assertThat(run.err().strip()).as(String.join(" ", command))
                    .isEqualTo("ringbus-outbox: no database given: pass --jdbc-url URL or set RINGBUS_OUTBOX_JDBC_URL"
                            + " (e.g. jdbc:postgresql://127.0.0.1:5432/app?user=app)");
        }
        try (Stream<Path> files = Files.list(workDir)) {
            assertThat(files).as("what the commands left in their working directory").isEmpty();
        }
    }

    @Test
    void theEnvironmentVariableNamesTheDatabaseWhenTheOptionIsAbsent() throws Exception {
        Map<String, String> env = Map.of("RINGBUS_OUTBOX_JDBC_URL", TestDatabases.PG_URL);
        Run migrate = process(env, "migrate", "--schema", schema);
        assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
        assertThat(migrate.out()).contains(schema + ".ringbus_outbox at " + TestDatabases.PG_URL, "schema version 3");
        Run status = process(env, "status", "--schema", schema);
        assertThat(status.exitCode()).as(status.toString()).isZero();
        assertThat(status.out()).contains("pending   0", "dead      0");
        try (Stream<Path> files = Files.list(workDir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void migrateInsertOnlyCreatesThePartitionedLayoutAndStatusSaysTheTableCannotTellWhatIsDelivered() throws Exception {
        Map<String, String> env = Map.of("RINGBUS_OUTBOX_JDBC_URL", TestDatabases.PG_URL);
        Run migrate = process(env, "migrate", "--schema", schema, "--insert-only", "1000");
        assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
        assertThat(migrate.out()).contains("schema version 3, insert-only layout");
        Run again = process(env, "migrate", "--schema", schema);
        assertThat(again.out()).as("an existing insert-only table is kept").contains("insert-only layout");
        Run status = process(env, "status", "--schema", schema);
        assertThat(status.exitCode()).as(status.toString()).isZero();
        assertThat(status.out()).contains("layout    insert-only", "dead      0").doesNotContain("pending");
        Run polling = process(env, "relay", "--schema", schema, "--sink", "log");
        assertThat(polling.exitCode()).as(polling.toString()).isEqualTo(1);
        assertThat(polling.err()).contains("has the insert-only layout", "wal(slot)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"status", "dead list", "dead inspect 1", "dead retry --all", "dead purge 1"})
    void aCommandThatReadsTheOutboxSaysThereIsNoSchemaAndHowToCreateItAndCreatesNothing(String command)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.addAll(List.of("--jdbc-url", TestDatabases.PG_URL, "--schema", schema));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = OutboxMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));

        int code = commandLine.execute(args.toArray(new String[0]));

        assertThat(code).as(err.toString()).isEqualTo(1);
        assertThat(err.toString().strip()).startsWith("ringbus-outbox: no outbox schema in " + schema
                + "; run `ringbus-outbox migrate` with the same options (bin/outbox migrate in a checkout;"
                + " looked for table " + schema
                + ".ringbus_outbox_schema at " + TestDatabases.PG_URL + ")");
        assertThat(err.toString().strip().lines()).hasSize(1);
        assertThat(out.toString()).isEmpty();
        assertThat(schemaExists()).as("schema " + schema + " after `" + command + "`").isFalse();
    }

    private boolean schemaExists() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabases.PG_URL);
             ResultSet rs = c.getMetaData().getSchemas(null, schema)) {
            return rs.next();
        }
    }

    /**
     * Runs {@code java io.ringbus.outbox.OutboxMain args} in {@link #workDir}, with the test JVM's
     * class and module path as its class path, and the given environment variables only (besides
     * PATH): an environment that sets RINGBUS_OUTBOX_JDBC_URL does not leak in.
     */
    private Run process(Map<String, String> env, String... args) throws IOException, InterruptedException {
        String classPath = Stream.of(System.getProperty("jdk.module.path"), System.getProperty("java.class.path"))
                .filter(p -> p != null && !p.isEmpty()).reduce((a, b) -> a + File.pathSeparator + b).orElseThrow();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m", "-cp", classPath, OutboxMain.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
        builder.environment().keySet().removeIf(name -> !name.equals("PATH"));
        builder.environment().putAll(env);
        Path stdout = Files.createTempFile("outbox-out", ".txt");
        Path stderr = Files.createTempFile("outbox-err", ".txt");
        try {
            Process process = builder.redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("ringbus-outbox " + String.join(" ", args) + " did not exit in 60 s");
            }
            return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }
}
