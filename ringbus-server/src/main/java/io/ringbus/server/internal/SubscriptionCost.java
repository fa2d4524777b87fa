package io.ringbus.server.internal;

/**
 * What one network subscription costs the server's heap, as the server charges it against
 * {@code max_subscription_memory}: a fixed part (the subscription, the connection's table and the
 * delivery handler), its subject and queue group (each held twice: the subscription's pattern and
 * the index's key), and a node of the broker's subject index per token of the subject (the worst
 * case: a subject that shares no prefix with another). Measured on Temurin 25 with compressed
 * oops, subjects sharing no first token: 610 bytes a subscription at 1 token, 894 at 2, 1,596 at
 * 5, 11,887 at 50, 232,867 at 1,000 (about 233 bytes a token); this estimate is at or above each.
 */
final class SubscriptionCost {
    /** Heap of a subscription beyond its subject, queue group and index nodes. */
    static final long FIXED = 400;
    /** Heap of one node of the subject index (a token of the subject). */
    static final long PER_TOKEN = 240;

    private SubscriptionCost() {
    }

    /**
     * @param subject    the subscription's subject or pattern
     * @param queueGroup its queue group, or {@code null}
     * @return the bytes charged for it
     */
    static long of(String subject, String queueGroup) {
        long tokens = 1;
        for (int i = 0; i < subject.length(); i++) {
            if (subject.charAt(i) == '.') {
                tokens++;
            }
        }
        return FIXED + 2L * subject.length() + PER_TOKEN * tokens
                + (queueGroup == null ? 0 : 2L * queueGroup.length());
    }
}
