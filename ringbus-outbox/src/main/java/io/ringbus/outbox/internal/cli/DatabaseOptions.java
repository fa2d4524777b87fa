package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxBuilder;
import java.sql.SQLException;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options every subcommand takes to find the outbox: JDBC URL, credentials, schema, table.
 */
public final class DatabaseOptions {
    @Option(names = "--jdbc-url", paramLabel = "URL",
            description = "jdbc:postgresql:... or jdbc:h2:... (default: the embedded H2 file "
                    + OutboxBuilder.DEFAULT_JDBC_URL + ")")
    private String jdbcUrl = OutboxBuilder.DEFAULT_JDBC_URL;

    @Option(names = "--user", description = "database user (default: the one in the URL, if any)")
    private String user;

    @Option(names = "--password", description = "database password (default: $RINGBUS_OUTBOX_PASSWORD)",
            defaultValue = "${env:RINGBUS_OUTBOX_PASSWORD}")
    private String password;

    @Option(names = "--schema", description = "schema of the outbox tables (default: ${DEFAULT-VALUE})",
            defaultValue = "public")
    private String schema;

    @Option(names = "--table", description = "outbox table (default: ${DEFAULT-VALUE})", defaultValue = "ringbus_outbox")
    private String table;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "how long to wait for a connection (default: ${DEFAULT-VALUE}); " + DurationConverter.GRAMMAR,
            defaultValue = "5s")
    private Duration connectTimeout;

    /** Creates the options (picocli fills them in). */
    public DatabaseOptions() {
    }

    /**
     * Opens the outbox these options name.
     *
     * @param migrate create or upgrade the schema; when false, fail unless it is current
     * @return the open outbox; the caller closes it
     * @throws IllegalArgumentException naming a bad option value
     * @throws CommandFailure           when the database cannot be reached, naming the URL
     * @throws IllegalStateException    when {@code migrate} is false and the schema is not current
     */
    public Outbox open(boolean migrate) {
        OutboxBuilder builder = Outbox.builder().jdbcUrl(jdbcUrl).schema(schema).table(table)
                .connectionTimeout(connectTimeout).migrate(migrate);
        if (user != null) {
            builder.credentials(user, password);
        }
        try {
            return builder.open();
        } catch (SQLException e) {
            throw new CommandFailure("cannot open the outbox " + where() + ": " + CommandFailure.describe(e), e);
        }
    }

    /** @return the URL (its password hidden), schema and table, for messages */
    public String where() {
        return schema + "." + table + " at " + jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
