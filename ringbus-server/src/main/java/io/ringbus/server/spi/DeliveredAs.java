package io.ringbus.server.spi;

import java.util.Objects;

/**
 * A payload that network subscribers receive under another subject than the one the broker routed
 * it by: an extension publishes it to an inbox or a deliver subject, and the client sees
 * {@code MSG <subject> ...} with the subject given here, as nats-server shows a JetStream delivery
 * under the stored message's subject. In-process subscribers get this object as the payload.
 *
 * @param subject the subject shown to network subscribers (a literal subject)
 * @param payload the payload bytes (not copied)
 */
public record DeliveredAs(String subject, byte[] payload) {
    /** Checks the fields. */
    public DeliveredAs {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(payload, "payload");
    }
}
