package io.ringbus.outbox;

import java.util.Objects;

/**
 * The result of {@link Inbox#process}: its outcome, the event id, and for a refusal the reason.
 *
 * @param outcome applied, duplicate or refused
 * @param eventId the message's event id; for a refusal as received, possibly {@code null}
 * @param reason  why the message was refused; {@code null} unless {@link InboxOutcome#REFUSED}
 */
public record InboxResult(InboxOutcome outcome, String eventId, String reason) {
    /** Checks the components. */
    public InboxResult {
        Objects.requireNonNull(outcome, "outcome");
        if ((outcome == InboxOutcome.REFUSED) != (reason != null)) {
            throw new IllegalArgumentException("a reason goes with REFUSED only: outcome=" + outcome
                    + ", reason=" + reason);
        }
    }
}
