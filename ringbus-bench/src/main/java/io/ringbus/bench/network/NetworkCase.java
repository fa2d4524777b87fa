package io.ringbus.bench.network;

import java.util.List;
import java.util.Locale;

/**
 * One workload of the {@code network} scenario: publisher and subscriber connections on one
 * subject, a payload size and a message count. Every subscriber gets every message, so a run
 * makes {@code messages x subscribers} deliveries.
 *
 * @param publishers   publisher connections, each on its own thread, &gt;= 1
 * @param subscribers  subscriber connections, &gt;= 1
 * @param payloadBytes payload size, &gt;= {@value SequencedPayload#HEADER_BYTES}
 * @param messages     messages published per run, over all publishers, &gt;= publishers
 */
public record NetworkCase(int publishers, int subscribers, int payloadBytes, long messages) {
    /**
     * @throws IllegalArgumentException naming the value that is out of range
     */
    public NetworkCase {
        if (publishers < 1 || publishers > 64) {
            throw new IllegalArgumentException("publishers must be in 1..64: publishers=" + publishers);
        }
        if (subscribers < 1 || subscribers > 64) {
            throw new IllegalArgumentException("subscribers must be in 1..64: subscribers=" + subscribers);
        }
        if (payloadBytes < SequencedPayload.HEADER_BYTES || payloadBytes > (1 << 20)) {
            throw new IllegalArgumentException("payloadBytes must be in " + SequencedPayload.HEADER_BYTES
                    + "..1048576: payloadBytes=" + payloadBytes);
        }
        if (messages < publishers) {
            throw new IllegalArgumentException("messages must be >= publishers (" + publishers + "): messages="
                    + messages);
        }
    }

    /**
     * The four standard cases: 1 -&gt; 1, 1 -&gt; 4 and 4 -&gt; 1 at 16 B, and 1 -&gt; 1 at 1 KiB.
     *
     * @param smallMessages messages per run of the 16-byte cases
     * @param largeMessages messages per run of the 1 KiB case
     * @return the cases, in run order
     */
    public static List<NetworkCase> standard(long smallMessages, long largeMessages) {
        return List.of(new NetworkCase(1, 1, 16, smallMessages), new NetworkCase(1, 4, 16, smallMessages),
                new NetworkCase(1, 1, 1_024, largeMessages), new NetworkCase(4, 1, 16, smallMessages));
    }

    /** @return e.g. {@code "1->4 16 B"} */
    public String label() {
        String size = payloadBytes % 1_024 == 0 ? payloadBytes / 1_024 + " KiB" : payloadBytes + " B";
        return String.format(Locale.ROOT, "%d->%d %s", publishers, subscribers, size);
    }

    /** @return e.g. {@code "1x4x16"}: publishers x subscribers x payload bytes, for {@code --cases} */
    public String id() {
        return publishers + "x" + subscribers + "x" + payloadBytes;
    }

    /** @return {@code messages x subscribers} */
    public long deliveries() {
        return messages * subscribers;
    }

    /**
     * @param publisher a publisher index, 0-based
     * @return the messages that publisher sends (the remainder goes to the first ones)
     */
    public long messagesOf(int publisher) {
        return messages / publishers + (publisher < messages % publishers ? 1 : 0);
    }

    /** @return {@link #messagesOf(int)} for every publisher */
    long[] messagesPerPublisher() {
        long[] counts = new long[publishers];
        for (int p = 0; p < publishers; p++) {
            counts[p] = messagesOf(p);
        }
        return counts;
    }
}
