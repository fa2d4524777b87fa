package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.DeadLetter;
import io.ringbus.outbox.DeadLetters;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxEvent;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dead list}: one page of dead letters as a table (id, subject, key, attempts, dead at,
 * last error), in id order; when the page is full, a last line says how to get the next one.
 */
@Command(name = "list", mixinStandardHelpOptions = true, description = "List dead letters in id order.")
public final class DeadListCommand extends OutboxCommand {
    /** Longest last error shown in the table; {@code dead inspect} shows all of it. */
    static final int ERROR_WIDTH = 100;
    private static final String[] HEADINGS = {"ID", "SUBJECT", "KEY", "ATTEMPTS", "DEAD AT", "LAST ERROR"};

    @Option(names = "--after", paramLabel = "ID", description = "list ids greater than this (default: ${DEFAULT-VALUE})",
            defaultValue = "0")
    private long afterId;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "at most this many, 1 to " + DeadLetters.MAX_LIST + " (default: ${DEFAULT-VALUE})")
    private int limit;

    /** Creates the command (picocli fills in its options). */
    public DeadListCommand() {
    }

    /**
     * @return 0 after printing the page (also when it is empty)
     * @throws Exception when the database cannot be read (exit code 1)
     */
    @Override
    public Integer call() throws Exception {
        List<DeadLetter> page;
        try (Outbox outbox = database.open(false)) {
            page = outbox.deadLetters().list(afterId, limit);
        }
        PrintWriter out = out();
        if (page.isEmpty()) {
            out.println(afterId == 0 ? "no dead letters" : "no dead letters after id " + afterId);
            out.flush();
            return 0;
        }
        List<String[]> rows = new ArrayList<>(page.size() + 1);
        rows.add(HEADINGS);
        for (DeadLetter dead : page) {
            OutboxEvent event = dead.event();
            rows.add(new String[] {Long.toString(event.id()), event.subject(), event.key() == null ? "-" : event.key(),
                    Integer.toString(event.attempts()), String.valueOf(dead.deadAt()), shorten(dead.lastError())});
        }
        int[] widths = new int[HEADINGS.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length - 1; i++) {
                line.append(row[i]).append(" ".repeat(widths[i] - row[i].length() + 2));
            }
            out.println(line.append(row[row.length - 1]));
        }
        if (page.size() == limit) {
            out.println("(more may follow: dead list --after " + page.get(page.size() - 1).event().id() + ")");
        }
        out.flush();
        return 0;
    }

    private static String shorten(String error) {
        if (error == null) {
            return "-";
        }
        String line = error.replaceAll("\\s+", " ");
        return line.length() <= ERROR_WIDTH ? line : line.substring(0, ERROR_WIDTH - 3) + "...";
    }
}
