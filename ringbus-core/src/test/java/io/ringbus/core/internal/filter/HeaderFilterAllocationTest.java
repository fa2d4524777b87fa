package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.testkit.AllocatedBytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A header policy's test allocates nothing: the bytes the testing thread allocates over many
 * evaluations, by HotSpot's per-thread counter, stay below one byte per evaluation (one object
 * per evaluation would be at least 16). Every operator is in the policy, matching and not, on
 * headers built in-process and on headers received as a NATS block (read in place).
 */
class HeaderFilterAllocationTest {
    private static final int WARM_UP = 200_000;
    private static final int MEASURED = 100_000;

    @Test
    void aHeaderPolicyAllocatesNothingPerEvaluation() {
        assumeTrue(AllocatedBytes.supported(), "needs com.sun.management.ThreadMXBean");
        MessageFilter filter = MessageFilter.headers("""
                {"region": ["eu", {"prefix": "ap-"}, {"suffix": "-west"}, {"equals-ignore-case": "US"}],
                 "amount": [{"numeric": [">", 100, "<=", 1e6]}, 42.5],
                 "tier": [{"anything-but": ["free", "trial"]}, {"anything-but": {"prefix": "test"}}],
                 "ip": [{"cidr": "10.0.0.0/8"}, {"exists": false}],
                 "$or": [{"urgent": [true]}, {"trace": [{"exists": true}]}, {"tag": ["a", "b"]}]}
                """);
        Message matching = Message.of("orders", null, Headers.of("region", "Us", "amount", "250.75", "tier", "gold",
                "ip", "10.1.2.3", "tag", "x", "tag", "b"), null);
        Message failing = Message.of("orders", null, Headers.of("region", "eu", "amount", "250", "tier", "gold",
                "urgent", "false"), null);
        Message nonNumeric = Message.of("orders", null, NatsHeaderBlock.wrap(
                "NATS/1.0\r\nregion: Us\r\namount: lots\r\nip: 10.1.2.3\r\n\r\n".getBytes(StandardCharsets.US_ASCII)), null);
        Message fromNats = Message.of("orders", null, NatsHeaderBlock.wrap(("NATS/1.0\r\nregion: Us\r\namount: 250.75\r\n"
                + "tier: gold\r\nip: 10.1.2.3\r\ntag: x\r\ntag: b\r\n\r\n").getBytes(StandardCharsets.US_ASCII)), null);
        assertThat(filter.test(matching)).isTrue();
        assertThat(filter.test(failing)).isFalse();
        assertThat(filter.test(nonNumeric)).isFalse();
        assertThat(filter.test(fromNats)).isTrue();
        int matched = 0;
        for (int i = 0; i < WARM_UP; i++) {
            matched += evaluate(filter, matching, failing, nonNumeric, fromNats);
        }
        long before = AllocatedBytes.currentThread();
        for (int i = 0; i < MEASURED; i++) {
            matched += evaluate(filter, matching, failing, nonNumeric, fromNats);
        }
        long allocated = AllocatedBytes.currentThread() - before;
        assertThat(matched).isEqualTo(2 * (WARM_UP + MEASURED));
        assertThat(allocated).as("bytes allocated by %d evaluations", 4 * MEASURED).isLessThan(MEASURED);
    }

    private static int evaluate(MessageFilter filter, Message matching, Message failing, Message nonNumeric,
                                Message fromNats) {
        int matched = filter.test(matching) ? 1 : 0;
        matched += filter.test(failing) ? 1 : 0;
        matched += filter.test(nonNumeric) ? 1 : 0;
        return matched + (filter.test(fromNats) ? 1 : 0);
    }
}
