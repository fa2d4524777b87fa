package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StoredStream;

import java.nio.file.Path;
import java.time.Duration;

/**
 * {@link KeyedDedupCrashTest}'s child: appends outbox rows (rows 1..200 each on a key of their own,
 * then one busy key) to a stream whose retention keeps 16 messages, printing {@code acked N} after
 * each PubAck, until it is killed. Arguments: the store's directory.
 */
public final class KeyedDedupCrashChild {
    private KeyedDedupCrashChild() {
    }

    /** @param args the store's directory */
    public static void main(String[] args) {
        LocalStorage storage = new LocalStorage(Path.of(args[0]), FsyncPolicy.ALWAYS, Duration.ofMillis(20), 64L << 20,
                io.ringbus.core.internal.log.LogConfig.DEFAULT_SEGMENT_BYTES);
        StoredStream stream = storage.stream(KeyedDedupCrashTest.config());
        ChildLines.print("ready");
        for (int row = 1; ; row++) {
            stream.append("orders.created", KeyedDedupCrashTest.outbox(row), new byte[8], null).join();
            ChildLines.print("acked " + row);
        }
    }
}
