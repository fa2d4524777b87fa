package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The exact MSG/HMSG bytes Outbound writes, and its counters. */
class OutboundEncodingTest {

    private static String written(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            out.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return out.toString();
    }

    @Test
    void encodesMsgAndHmsgWithAndWithoutReplyInOrder() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ServerCounters counters = new ServerCounters();
        Outbound outbound = new Outbound(channel, counters, new ConnectionStats(), 1 << 20, 1_000_000_000L,
                new io.ringbus.core.memory.ByteBudget(Long.MAX_VALUE), () -> { });
        outbound.headersSupported(true);
        byte[] sid = "42".getBytes(StandardCharsets.US_ASCII);
        String big = "x".repeat(12_345);
        outbound.enqueue(Message.of("a.b", null, Headers.EMPTY, "hello".getBytes(StandardCharsets.UTF_8)), sid);
        outbound.enqueue(Message.of("a.b", "_INBOX.1", Headers.EMPTY, new byte[0]), sid);
        outbound.enqueue(Message.of("s\u00e9", null, Headers.of("K", "v"), "p"), sid);
        outbound.enqueue(Message.of("a." + "long".repeat(80), "r", Headers.of("K", "v"), big), sid);
        outbound.enqueue(Message.of("a.b", null, Headers.EMPTY, null), sid);
        outbound.enqueue(Message.of("a.b", null, Headers.EMPTY, "world"), sid);
        outbound.enqueue(Message.of("a.c", null, Headers.EMPTY, "0123456789"), sid);
        outbound.enqueue(Message.of("a.c", "r\u00e9p.\u20ac.\ud83d\ude00", Headers.EMPTY, "z"), sid);
        channel.runPendingTasks();
        String header = "NATS/1.0\r\nK: v\r\n\r\n";
        assertThat(written(channel)).isEqualTo(
                "MSG a.b 42 5\r\nhello\r\n"
                + "MSG a.b 42 _INBOX.1 0\r\n\r\n"
                + "HMSG s\u00e9 42 " + header.length() + " " + (header.length() + 1) + "\r\n" + header + "p\r\n"
                + "HMSG a." + "long".repeat(80) + " 42 r " + header.length() + " " + (header.length() + big.length())
                + "\r\n" + header + big + "\r\n"
                + "MSG a.b 42 0\r\n\r\n"
                + "MSG a.b 42 5\r\nworld\r\n"
                + "MSG a.c 42 10\r\n0123456789\r\n"
                + "MSG a.c 42 r\u00e9p.\u20ac.\ud83d\ude00 1\r\nz\r\n");
        assertThat(counters.messagesOut.sum()).isEqualTo(8);
        assertThat(outbound.pending()).isZero();
        channel.finishAndReleaseAll();
    }
}
