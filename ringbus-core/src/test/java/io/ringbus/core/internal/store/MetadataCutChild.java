package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.StartPosition;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The process {@link MetadataPowerCutTest} kills: it opens a local store ({@code ALWAYS}) and
 * creates streams and consumers in a loop, as fast as it can, until killed. Runs in a JVM of its own.
 *
 * <p>Arguments: {@code <dir> <first>}. Prints {@code ready} once the store is open, then for
 * {@code i = first, first + 1, ...}: {@code creating i}; opens (creating) the stream
 * {@link #config(long) s<i>_all}, prints {@code stream i}; opens (creating) its consumer
 * {@link #consumer(long) c}, which starts at {@code NEW}, prints {@code consumer i}; appends one
 * message {@code m<i>} and prints {@code appended i <sequence>} once it is acknowledged.
 */
final class MetadataCutChild {
    private MetadataCutChild() {
    }

    /** @return the stream {@code s<i>.>} (named {@code s<i>_all}) */
    static StreamConfig config(long i) {
        return StreamConfig.of("s" + i + ".>");
    }

    /** @return its consumer {@code c}: it starts at {@code NEW}, so a lost creation skips what came after it */
    static ConsumerConfig consumer(long i) {
        return new ConsumerConfig("c", "s" + i + ".>", StartPosition.newOnly(), ConsumerConfig.DEFAULT_ACK_WAIT,
                ConsumerConfig.DEFAULT_MAX_DELIVER, ConsumerConfig.DEFAULT_MAX_ACK_PENDING);
    }

    /** @return the payload of stream {@code i}'s message */
    static byte[] payload(long i) {
        return ("m" + i).getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) {
        Storage storage = Storage.local(Path.of(args[0])); // never closed: the test kills the process
        ChildLines.print("ready");
        for (long i = Long.parseLong(args[1]); ; i++) {
            ChildLines.print("creating " + i);
            StoredStream stream = storage.stream(config(i));
            ChildLines.print("stream " + i);
            stream.consumer(consumer(i));
            ChildLines.print("consumer " + i);
            long sequence = stream.append("s" + i + ".x", null, payload(i), null).join().sequence();
            ChildLines.print("appended " + i + " " + sequence);
        }
    }
}
