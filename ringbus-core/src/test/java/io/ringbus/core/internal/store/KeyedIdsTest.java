package io.ringbus.core.internal.store;

import io.ringbus.core.Headers;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.wire.HeaderNames;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyedIdsTest {
    @Test
    void parsesThePrefixAsEverythingBeforeTheTrailingDigits() {
        assertThat(KeyedIds.parse("orders-42", "k1")).isEqualTo(new KeyedIds.Id("orders-", "k1", 42));
        assertThat(KeyedIds.parse("42", "k1")).isEqualTo(new KeyedIds.Id("", "k1", 42));
        assertThat(KeyedIds.parse("v2-007", "k1")).isEqualTo(new KeyedIds.Id("v2-", "k1", 7));
    }

    @Test
    void leavesMessagesWithoutANumberOrAKeyToTheDuplicateWindow() {
        assertThat(KeyedIds.parse("orders-abc", "k1")).as("non-numeric suffix").isNull();
        assertThat(KeyedIds.parse("", "k1")).as("empty event id").isNull();
        assertThat(KeyedIds.parse("orders-1", null)).as("no key").isNull();
        assertThat(KeyedIds.parse("orders-1", "")).as("empty key").isNull();
        assertThat(KeyedIds.parse(null, "k1")).as("no event id").isNull();
        assertThat(KeyedIds.parse("orders-" + Long.MAX_VALUE, "k1")).as("the largest long")
                .isEqualTo(new KeyedIds.Id("orders-", "k1", Long.MAX_VALUE));
        assertThat(KeyedIds.parse("orders-9223372036854775808", "k1")).as("one past a long").isNull();
        assertThat(KeyedIds.parse("orders-" + "9".repeat(40), "k1")).as("a huge number").isNull();
    }

    @Test
    void readsBothHeadersFromARawBlock() {
        Headers both = Headers.builder().add(HeaderNames.EVENT_ID, "o-5").add(HeaderNames.KEY, "cust-1").build();
        assertThat(KeyedIds.parse(both)).isEqualTo(new KeyedIds.Id("o-", "cust-1", 5));
        Headers wrapped = io.ringbus.core.wire.NatsHeaderBlock.wrap(both.toNatsBlock());
        assertThat(KeyedIds.parse(wrapped)).isEqualTo(new KeyedIds.Id("o-", "cust-1", 5));
        assertThat(KeyedIds.parse(Headers.of(HeaderNames.EVENT_ID, "o-5"))).as("no key").isNull();
        assertThat(KeyedIds.parse(Headers.of(HeaderNames.KEY, "cust-1"))).as("no event id").isNull();
        assertThat(KeyedIds.parse((Headers) null)).isNull();
    }

    @Test
    void aNumberAtOrBelowTheKeysLastIsADuplicateOfItsMessage() {
        KeyedIds ids = new KeyedIds(StreamConfig.DEFAULT_KEY_DEDUP_BYTES);
        KeyedIds.Id five = KeyedIds.parse("o-5", "k");
        assertThat(ids.duplicateOf(five)).isZero();
        ids.remember(five, 10);
        assertThat(ids.duplicateOf(KeyedIds.parse("o-5", "k"))).isEqualTo(10);
        assertThat(ids.duplicateOf(KeyedIds.parse("o-3", "k"))).isEqualTo(10);
        assertThat(ids.duplicateOf(KeyedIds.parse("o-6", "k"))).isZero();
        assertThat(ids.duplicateOf(KeyedIds.parse("p-5", "k"))).as("another outbox's prefix").isZero();
        assertThat(ids.duplicateOf(KeyedIds.parse("o-5", "k2"))).as("another key").isZero();
        assertThat(ids.figures().duplicates()).isEqualTo(2);
        ids.remember(KeyedIds.parse("o-4", "k"), 11); // a replayed record stored while forgotten: kept at 5
        assertThat(ids.duplicateOf(KeyedIds.parse("o-5", "k"))).isEqualTo(10);
    }

    @Test
    void evictsTheLeastRecentlyUpdatedKeyPastItsBytes() {
        long perKey = 2L * ("o-".length() + "k0".length()) + StreamConfig.KEY_DEDUP_ENTRY_OVERHEAD;
        KeyedIds ids = new KeyedIds(Math.max(StreamConfig.MIN_KEY_DEDUP_BYTES, perKey * 10));
        int fit = (int) (Math.max(StreamConfig.MIN_KEY_DEDUP_BYTES, perKey * 10) / perKey);
        for (int k = 0; k < fit; k++) {
            ids.remember(KeyedIds.parse("o-1", "k" + k), k + 1);
        }
        ids.remember(KeyedIds.parse("o-2", "k0"), 100); // k0 updated: k1 is now the least recent
        ids.remember(KeyedIds.parse("o-1", "kX"), 101);
        StreamInfo.KeyedIds figures = ids.figures();
        assertThat(figures.evicted()).isEqualTo(1);
        assertThat(figures.keys()).isEqualTo(fit);
        assertThat(figures.bytes()).isLessThanOrEqualTo(Math.max(StreamConfig.MIN_KEY_DEDUP_BYTES, perKey * 10));
        assertThat(ids.duplicateOf(KeyedIds.parse("o-1", "k1"))).as("evicted: falls back to the window").isZero();
        assertThat(ids.duplicateOf(KeyedIds.parse("o-2", "k0"))).isEqualTo(100);
        assertThat(ids.duplicateOf(KeyedIds.parse("o-1", "k2"))).isEqualTo(3);
    }

    @Test
    void aKeyLargerThanTheWholeBoundIsNeverRemembered() {
        KeyedIds ids = new KeyedIds(StreamConfig.MIN_KEY_DEDUP_BYTES);
        ids.remember(KeyedIds.parse("o-1", "x".repeat(1000)), 1);
        assertThat(ids.figures()).isEqualTo(new StreamInfo.KeyedIds(0, 0, 1, 0));
    }

    @Test
    void theBoundIsCheckedWhereItIsSet() {
        assertThatThrownBy(() -> StreamConfig.of("a.>").withKeyDedupBytes(10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyDedupBytes=10");
        assertThat(StreamConfig.of("a.>").keyDedupBytes()).as("off by default").isZero();
    }
}
