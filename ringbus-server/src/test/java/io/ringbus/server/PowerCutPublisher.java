package io.ringbus.server;

import java.time.Duration;

/**
 * One publisher of a power-cut run for one life of the server ({@link PowerCutClient} starts it):
 * its own connection, JetStream asynchronous publishing with its id ({@code <publisher>-<n>}) as
 * {@code Nats-Msg-Id} and at the start of the payload, a bounded window of acknowledgements
 * outstanding; first the ids whose acknowledgement never came ({@link PowerCutLedger#unacknowledged}),
 * in order, then new ones ({@link PowerCutLedger#next}); each acknowledgement recorded with
 * {@link PowerCutLedger#acked} as it arrives. It publishes until stopped or its connection is gone.
 */
interface PowerCutPublisher {
    /** How long {@link #stop()} waits for the publisher to end. */
    Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Stops publishing and waits until it has ended: afterwards no acknowledgement is recorded and
     * the ledger's counts for this publisher are final.
     *
     * @throws AssertionError when it does not end within {@link #STOP_TIMEOUT}, or it reported
     *                        something the ledger contradicts
     */
    void stop() throws InterruptedException;
}
