package io.ringbus.core;

/**
 * The store's acknowledgement of one durable publish: the record is durable under the store's
 * policy. The same fields as JetStream's PubAck.
 *
 * @param stream    the stream that stored it
 * @param sequence  its sequence in the stream, from 1
 * @param duplicate {@code true} when a message with the same id was stored within the stream's
 *                  duplicate window: nothing new was stored and {@code sequence} is the earlier one's
 */
public record PublishAck(String stream, long sequence, boolean duplicate) {
}
