package io.ringbus.jetstream.internal.consumer;

import io.ringbus.core.Headers;
import io.ringbus.core.wire.HeaderNames;
import io.ringbus.core.wire.NatsHeaderBlock;

/**
 * The header blocks a consumer sends besides its messages' own, as nats-server 2.9 writes them:
 * idle heartbeats, the status that ends a pull request, and a {@code headers_only} delivery.
 *
 * <p>Threading: static and stateless.
 */
final class ConsumerStatus {
    private static final String IDLE_HEARTBEAT = "100 Idle Heartbeat";

    private ConsumerStatus() {
    }

    /**
     * @param lastConsumer the consumer sequence last delivered
     * @param lastStream   the stream sequence last delivered
     * @param stalledOn    the flow-control reply the consumer waits for, or {@code null}
     * @return nats-server's idle heartbeat
     */
    static byte[] heartbeat(long lastConsumer, long lastStream, String stalledOn) {
        String consumer = String.valueOf(lastConsumer);
        String stream = String.valueOf(lastStream);
        return stalledOn == null
                ? NatsHeaderBlock.statusBlock(IDLE_HEARTBEAT, HeaderNames.LAST_CONSUMER, consumer,
                        HeaderNames.LAST_STREAM, stream)
                : NatsHeaderBlock.statusBlock(IDLE_HEARTBEAT, HeaderNames.LAST_CONSUMER, consumer,
                        HeaderNames.LAST_STREAM, stream, HeaderNames.CONSUMER_STALLED, stalledOn);
    }

    /**
     * @param status  the status, such as {@code "408 Request Timeout"}
     * @param request the pull request it ends
     * @return the status with the messages and bytes the request had left
     */
    static byte[] pending(String status, JsConsumer.PullRequest request) {
        return NatsHeaderBlock.statusBlock(status,
                HeaderNames.PENDING_MESSAGES, String.valueOf(Math.max(0, request.batch)),
                HeaderNames.PENDING_BYTES, String.valueOf(Math.max(0, request.maxBytes)));
    }

    /**
     * @param stored      the stored message's headers, or {@code null}
     * @param payloadSize its payload's length
     * @return the headers of a {@code headers_only} delivery (what KV's {@code keys()} reads): the
     *         stored block, kept as is, with {@code Nats-Msg-Size} added; the delivery has no payload
     */
    static Headers headersOnly(Headers stored, int payloadSize) {
        return NatsHeaderBlock.wrap(NatsHeaderBlock.append(stored == null ? null : stored.toNatsBlock(),
                HeaderNames.MSG_SIZE, String.valueOf(payloadSize)));
    }
}
