package io.ringbus.core.internal.log;

/**
 * A record copied out of the log, owning its arrays.
 *
 * @param sequence        its sequence
 * @param timestampMillis when it was appended, epoch millis
 * @param subject         its subject
 * @param headers         its headers, empty if none
 * @param payload         its payload
 */
public record StoredRecord(long sequence, long timestampMillis, String subject, byte[] headers, byte[] payload) {
}
