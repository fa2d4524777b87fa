package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.DeadLetters;
import io.ringbus.outbox.Outbox;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code dead retry} and {@code dead purge} share: act on the dead letters named by id, or
 * on all of them with {@code --all} (one or the other: a usage error otherwise). Each id is its
 * own transaction; ids that are not dead letters are named on stderr after the others were
 * done, and make the exit code 1.
 */
public abstract class DeadLetterAction extends OutboxCommand {
    @Parameters(paramLabel = "ID", arity = "0..*", description = "dead letter ids")
    private List<Long> ids = new ArrayList<>();

    @Option(names = "--all", description = "every dead letter")
    private boolean all;

    /** For subclasses (picocli fills in the options). */
    protected DeadLetterAction() {
    }

    /** @return what the command did, in the past tense, e.g. {@code retried} */
    protected abstract String done();

    /**
     * @param deadLetters the outbox's dead letters
     * @param id          a dead letter's id
     * @return whether the id was a dead letter (and the action happened)
     * @throws SQLException when the database fails
     */
    protected abstract boolean one(DeadLetters deadLetters, long id) throws SQLException;

    /**
     * @param deadLetters the outbox's dead letters
     * @return how many dead letters the action affected
     * @throws SQLException when the database fails
     */
    protected abstract int every(DeadLetters deadLetters) throws SQLException;

    /**
     * @return 0 when every id was a dead letter (or with {@code --all}), 1 otherwise
     * @throws Exception when the database fails (exit code 1)
     */
    @Override
    public Integer call() throws Exception {
        if (all == !ids.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give dead letter ids or --all, not " + (all ? "both" : "neither"));
        }
        PrintWriter out = out();
        List<Long> missing = new ArrayList<>();
        try (Outbox outbox = database.open(false)) {
            DeadLetters deadLetters = outbox.deadLetters();
            if (all) {
                out.println(done() + " " + every(deadLetters) + " dead letters");
            }
            for (long id : ids) {
                if (one(deadLetters, id)) {
                    out.println(done() + " " + id);
                } else {
                    missing.add(id);
                }
            }
        }
        out.flush();
        if (!missing.isEmpty()) {
            PrintWriter err = err();
            String list = missing.stream().map(String::valueOf).collect(Collectors.joining(", "));
            err.println("ringbus-outbox: not a dead letter: " + (missing.size() == 1 ? "id " : "ids ") + list
                    + " (no row with that id, or the row is not dead) in " + database.where());
            err.flush();
            return 1;
        }
        return 0;
    }
}
