package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.DeadLetters;
import java.sql.SQLException;
import picocli.CommandLine.Command;

/** {@code dead purge (ID... | --all)}: deletes dead letters for good. */
@Command(name = "purge", mixinStandardHelpOptions = true, description = "Delete dead letters for good.")
public final class DeadPurgeCommand extends DeadLetterAction {
    /** Creates the command (picocli fills in its options). */
    public DeadPurgeCommand() {
    }

    @Override
    protected String done() {
        return "purged";
    }

    @Override
    protected boolean one(DeadLetters deadLetters, long id) throws SQLException {
        return deadLetters.purge(id);
    }

    @Override
    protected int every(DeadLetters deadLetters) throws SQLException {
        return deadLetters.purgeAll();
    }
}
