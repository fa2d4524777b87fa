package io.ringbus.bench.network;

/**
 * One verified run of a {@link NetworkCase}.
 *
 * @param publishNanos from the start signal until every publisher's {@code flush()} returned
 * @param deliverNanos from the start signal until the last subscriber had every message
 * @param messages     messages published
 * @param deliveries   deliveries counted, {@code messages x subscribers}
 */
public record RunOutcome(long publishNanos, long deliverNanos, long messages, long deliveries) {
    /** @return messages published per second */
    public double publishedPerSecond() {
        return messages * 1e9 / publishNanos;
    }

    /** @return deliveries per second, until the last one */
    public double deliveriesPerSecond() {
        return deliveries * 1e9 / deliverNanos;
    }
}
