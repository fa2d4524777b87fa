package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The builder's checks of its arguments, made before anything connects. */
class OutboxBuilderTest {
    @Test
    void insertOnlyRefusesAPartitionSizeWhosePartitionsAheadWouldOverflowTheIds() {
        assertThatThrownBy(() -> Outbox.builder().insertOnly(Long.MAX_VALUE / 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitionRows=" + Long.MAX_VALUE / 2);
        assertThatThrownBy(() -> Outbox.builder().insertOnly(99))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitionRows=99");
        Outbox.builder().insertOnly(1L << 40);
    }
}
