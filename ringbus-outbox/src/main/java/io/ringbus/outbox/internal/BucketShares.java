package io.ringbus.outbox.internal;

import java.util.List;

/**
 * PostgreSQL: how one relay loop splits its batch among the buckets it holds. Each bucket's share
 * is in proportion to what it gave at its last claim, so that a backlog in a few buckets (a hot
 * key) still fills batches within a few rounds.
 *
 * <p>Threading: owned by one loop's thread.
 */
final class BucketShares {
    /** Rows each bucket gave at its last claim. */
    private final int[] lastCounts = new int[OutboxSql.BUCKETS];
    private int rotation;

    /**
     * Splits {@code batchSize} rows among {@code buckets}: in proportion to last time's rows (plus
     * one, so an idle bucket still gets looked at), rounded down; what rounding leaves goes one row
     * each to buckets in turn, each call starting after the last bucket the previous call gave
     * one to, so the total never exceeds the batch size and none starves.
     *
     * @param buckets   the held buckets, at least one
     * @param batchSize the rows to split
     * @return {buckets with a share, their shares}
     */
    int[][] split(int[] buckets, int batchSize) {
        long weights = 0;
        for (int bucket : buckets) {
            weights += lastCounts[bucket] + 1L;
        }
        int[] shares = new int[buckets.length];
        int left = batchSize;
        for (int i = 0; i < buckets.length; i++) {
            shares[i] = (int) (batchSize * (lastCounts[buckets[i]] + 1L) / weights);
            left -= shares[i];
        }
        // The next call's turn starts after this one's: when the batch is smaller than the
        // buckets held (a loop's short first claims, or a small batchSize), the idle buckets are
        // each looked at within buckets / batch calls, not one call later per bucket.
        int start = rotation % buckets.length;
        int given = 0;
        for (int i = 0; left > 0 && i < buckets.length; i++) {
            shares[(start + i) % buckets.length]++;
            left--;
            given++;
        }
        rotation = (start + Math.max(1, given)) % buckets.length;
        int used = 0;
        for (int share : shares) {
            used += share > 0 ? 1 : 0;
        }
        int[] claimBuckets = new int[used];
        int[] limits = new int[used];
        for (int i = 0, j = 0; i < buckets.length; i++) {
            if (shares[i] > 0) {
                claimBuckets[j] = buckets[i];
                limits[j++] = shares[i];
            }
        }
        return new int[][] {claimBuckets, limits};
    }

    /**
     * Records what a claim of {@code claimed} buckets gave.
     *
     * @param claimed the buckets claimed from
     * @param rows    the rows it gave
     */
    void record(int[] claimed, List<ClaimedRow> rows) {
        for (int bucket : claimed) {
            lastCounts[bucket] = 0;
        }
        for (ClaimedRow row : rows) {
            lastCounts[row.bucket()]++;
        }
    }
}
