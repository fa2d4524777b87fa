package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.DeadLetters;
import java.sql.SQLException;
import picocli.CommandLine.Command;

/** {@code dead retry (ID... | --all)}: makes dead letters pending again, with a fresh attempt count. */
@Command(name = "retry", mixinStandardHelpOptions = true,
        description = "Make dead letters pending again (fresh attempt count); relays deliver them next.")
public final class DeadRetryCommand extends DeadLetterAction {
    /** Creates the command (picocli fills in its options). */
    public DeadRetryCommand() {
    }

    @Override
    protected String done() {
        return "retried";
    }

    @Override
    protected boolean one(DeadLetters deadLetters, long id) throws SQLException {
        return deadLetters.retry(id);
    }

    @Override
    protected int every(DeadLetters deadLetters) throws SQLException {
        return deadLetters.retryAll();
    }
}
