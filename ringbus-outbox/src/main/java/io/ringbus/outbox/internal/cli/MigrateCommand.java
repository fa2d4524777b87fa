package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.Outbox;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code migrate}: creates the outbox schema or upgrades it to this build's version, and prints
 * the version. Running it again changes nothing.
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = "Create or upgrade the outbox schema and print its version (safe to repeat).")
public final class MigrateCommand extends OutboxCommand {
    @Option(names = "--insert-only", paramLabel = "ROWS", arity = "0..1", fallbackValue = "1000000",
            description = "create the insert-only layout for WAL relays, ROWS ids per partition (default 1000000);"
                    + " the table must be new or empty")
    long insertOnlyRows;

    /** Creates the command (picocli fills in its options). */
    public MigrateCommand() {
    }

    /**
     * @return 0 once the schema is current
     * @throws Exception when the database cannot be reached or a script fails (exit code 1)
     */
    @Override
    public Integer call() throws Exception {
        try (Outbox outbox = database.open(true, insertOnlyRows)) {
            PrintWriter out = out();
            out.println("outbox " + database.where() + ": schema version " + outbox.schemaVersion()
                    + (outbox.insertOnly() ? ", insert-only layout" : ""));
            out.flush();
            return 0;
        }
    }
}
