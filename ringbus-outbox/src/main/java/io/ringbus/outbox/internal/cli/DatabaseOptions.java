package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxBuilder;
import io.ringbus.outbox.internal.MissingSchemaException;
import java.sql.SQLException;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options every subcommand takes to find the outbox: JDBC URL, credentials, schema, table.
 *
 * <p>The URL has no default database: {@code --jdbc-url} or {@value #URL_VARIABLE} must name one.
 * (The library's embedded default, an H2 file under the working directory, would leave a
 * database wherever the command happened to run, e.g. inside a checkout.)
 */
public final class DatabaseOptions {
    /** The environment variable that gives the JDBC URL when {@code --jdbc-url} is absent. */
    public static final String URL_VARIABLE = "RINGBUS_OUTBOX_JDBC_URL";

    @Option(names = "--jdbc-url", paramLabel = "URL", defaultValue = "${env:" + URL_VARIABLE + "}",
            description = "jdbc:postgresql:... or jdbc:h2:... (default: $" + URL_VARIABLE + "; one of the two is"
                    + " required)")
    private String jdbcUrl;

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
     * @throws CommandFailure           when no URL is given (naming the option and the variable) or
     *                                  the database cannot be reached (naming the URL)
     * @throws IllegalStateException    when {@code migrate} is false and the schema is missing or not
     *                                  current ("no outbox schema in ...; run `ringbus-outbox migrate` ...")
     */
    public Outbox open(boolean migrate) {
        return open(migrate, 0);
    }

    /**
     * Opens the outbox these options name, creating the insert-only layout where asked.
     *
     * @param migrate       create or upgrade the schema
     * @param insertOnlyRows ids per partition of the insert-only layout to create, or 0 for none
     * @return the open outbox; the caller closes it
     */
    public Outbox open(boolean migrate, long insertOnlyRows) {
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            throw new CommandFailure("no database given: pass --jdbc-url URL or set " + URL_VARIABLE
                    + " (e.g. jdbc:postgresql://127.0.0.1:5432/app?user=app)");
        }
        OutboxBuilder builder = Outbox.builder().jdbcUrl(jdbcUrl).schema(schema).table(table)
                .connectionTimeout(connectTimeout).migrate(migrate);
        if (insertOnlyRows != 0) {
            builder.insertOnly(insertOnlyRows);
        }
        if (user != null) {
            builder.credentials(user, password);
        }
        try {
            return builder.open();
        } catch (MissingSchemaException e) {
            // the command's own name: bin/ringbus-outbox in the distribution, bin/outbox in a checkout
            throw new CommandFailure("no outbox schema in " + e.schema() + "; run `ringbus-outbox migrate` with the"
                    + " same options (bin/outbox migrate in a checkout; looked for table " + e.versionTable() + " at "
                    + safeUrl() + ")");
        } catch (SQLException e) {
            throw new CommandFailure("cannot open the outbox " + where() + ": " + CommandFailure.describe(e), e);
        }
    }

    /** @return the URL (its password hidden), schema and table, for messages */
    public String where() {
        return schema + "." + table + " at " + safeUrl();
    }

    private String safeUrl() {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
