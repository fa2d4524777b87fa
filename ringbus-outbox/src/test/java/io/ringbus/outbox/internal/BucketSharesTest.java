package io.ringbus.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BucketSharesTest {

    /**
     * A loop holding all 64 buckets starts with claims of 32 rows: two idle polls look at every
     * bucket, so a new relay's first row waits two polls at most (it waited up to 33, the turn
     * moving one bucket per poll).
     */
    @Test
    void idleBucketsBeyondTheBatchAreAllLookedAtWithinBucketsOverBatchCalls() {
        BucketShares shares = new BucketShares();
        int[] held = IntStream.range(0, OutboxSql.BUCKETS).toArray();
        Set<Integer> looked = new HashSet<>();
        for (int call = 0; call < 2; call++) {
            int[][] split = shares.split(held, 32);
            assertThat(IntStream.of(split[1]).sum()).as("never more than the batch").isEqualTo(32);
            IntStream.of(split[0]).forEach(looked::add);
            shares.record(split[0], List.of());
        }
        assertThat(looked).hasSize(OutboxSql.BUCKETS);
    }

    @Test
    void aSingleLeftOverRowStillMovesOn() {
        BucketShares shares = new BucketShares();
        int[] held = {3, 5, 7};
        Set<Integer> looked = new HashSet<>();
        for (int call = 0; call < 3; call++) {
            int[][] split = shares.split(held, 1);
            assertThat(split[0]).hasSize(1);
            looked.add(split[0][0]);
            shares.record(split[0], List.of());
        }
        assertThat(looked).containsExactlyInAnyOrder(3, 5, 7);
    }
}
