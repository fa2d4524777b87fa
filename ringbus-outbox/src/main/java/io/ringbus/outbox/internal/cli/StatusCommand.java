package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxCounts;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code status}: prints how many rows are pending, delivered and dead. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Print how many rows are pending, delivered (kept until the retention sweep) and dead.")
public final class StatusCommand extends OutboxCommand {
    /** Creates the command (picocli fills in its options). */
    public StatusCommand() {
    }

    /**
     * @return 0 after printing the counts
     * @throws Exception when the database cannot be read (the CLI reports it and exits with 1)
     */
    @Override
    public Integer call() throws Exception {
        try (Outbox outbox = database.open(false)) {
            OutboxCounts counts = outbox.counts();
            PrintWriter out = out();
            out.println("outbox    " + database.where());
            if (counts.pending() < 0) {
                out.println("layout    insert-only (what is delivered is the WAL relay's slot position:"
                        + " pg_replication_slots)");
            } else {
                out.println("pending   " + counts.pending());
                out.println("delivered " + counts.delivered());
            }
            out.println("dead      " + counts.dead());
            out.flush();
            return 0;
        }
    }
}
