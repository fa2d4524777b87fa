package io.ringbus.outbox;

import io.ringbus.outbox.internal.cli.CommandFailure;
import io.ringbus.outbox.internal.cli.DeadCommand;
import io.ringbus.outbox.internal.cli.MigrateCommand;
import io.ringbus.outbox.internal.cli.RelayCommand;
import io.ringbus.outbox.internal.cli.StatusCommand;
import java.sql.SQLException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ringbus-outbox} command: runs a relay, shows the outbox's counts, creates or upgrades
 * its schema, and lists, inspects, retries and purges dead letters.
 *
 * <p>Every subcommand takes the database options ({@code --jdbc-url}, else the environment
 * variable {@code RINGBUS_OUTBOX_JDBC_URL}, one of which is required: no database is created by
 * default; {@code --user}, {@code --password},
 * {@code --schema}, {@code --table}, {@code --connect-timeout}). Exit codes: 0 success; 1 a
 * failure, reported on stderr as one line naming the bad value (bad URL, unreachable database,
 * an id that is not a dead letter); 2 a usage error (unknown option, missing argument).
 * Only {@code migrate} and {@code relay} create or upgrade the schema; the other commands refuse
 * a database without it ("no outbox schema in public; run `ringbus-outbox migrate` ...", exit code 1).
 *
 * <p>Threading: runs the chosen command on the calling thread; {@code relay} blocks until stopped.
 */
@Command(name = "ringbus-outbox", mixinStandardHelpOptions = true, versionProvider = OutboxMain.Version.class,
        description = "Relays, inspects and repairs a ringbus transactional outbox (PostgreSQL or H2).",
        subcommands = {RelayCommand.class, StatusCommand.class, MigrateCommand.class, DeadCommand.class})
public final class OutboxMain {
    private static final String NAME = "ringbus-outbox";

    private OutboxMain() {
    }

    /** Supplies {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = OutboxMain.class.getPackage().getImplementationVersion();
            return new String[] {NAME + " " + (version != null ? version : "(development build)")
                    + " (Java " + Runtime.version() + ")"};
        }
    }

    /**
     * Runs the command line and exits the JVM with its exit code.
     *
     * @param args see {@code --help}
     */
    public static void main(String[] args) {
        // The pool's INFO lines would bury the command's own output on stderr.
        if (System.getProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
        }
        System.exit(run(args));
    }

    /**
     * Runs the command line in this JVM, printing to {@code System.out} and {@code System.err}.
     * {@code relay} returns only after a shutdown hook stopped it, so run that one in a JVM of its own.
     *
     * @param args see {@code --help}
     * @return the exit code: 0 success, 1 failure, 2 usage error
     */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /**
     * Builds the command line with the exit-code and error handling of {@link #run}; tests and
     * embedders can redirect its output with {@link CommandLine#setOut} and {@link CommandLine#setErr}.
     *
     * @return a new command line
     */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(OutboxMain.class);
        commandLine.setExecutionExceptionHandler((e, command, parseResult) -> {
            command.getErr().println(NAME + ": " + describe(e));
            if (!(e instanceof CommandFailure || e instanceof SQLException || e instanceof IllegalArgumentException
                    || e instanceof IllegalStateException)) {
                e.printStackTrace(command.getErr());
            }
            command.getErr().flush();
            return 1;
        });
        return commandLine;
    }

    private static String describe(Exception e) {
        if (e instanceof SQLException) {
            return "database error: " + CommandFailure.describe(e);
        }
        return CommandFailure.describe(e);
    }
}
