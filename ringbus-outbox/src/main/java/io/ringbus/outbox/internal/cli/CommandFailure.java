package io.ringbus.outbox.internal.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A command failed for a reason the user can act on: the CLI prints the message as one line on
 * stderr, without a stack trace, and exits with 1.
 */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the value at fault
     */
    public CommandFailure(String message) {
        super(message);
    }

    /**
     * @param message what failed, naming the value at fault
     * @param cause   the underlying failure
     */
    public CommandFailure(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Joins the distinct messages of a failure and its causes, outermost first, so that a pool's
     * "request timed out" is followed by the driver's "connection refused".
     *
     * @param failure the failure
     * @return one line
     */
    public static String describe(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null && messages.size() < 5; t = t.getCause()) {
            String message = t.getMessage() != null ? t.getMessage().strip() : t.getClass().getSimpleName();
            if (messages.stream().noneMatch(m -> m.contains(message))) {
                messages.add(message);
            }
        }
        return String.join(": ", messages).replace('\n', ' ');
    }
}
