package io.ringbus.bench.storage;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;

import java.nio.file.Path;

/**
 * The floor for replay: core's {@code LogReader} over a stream's segment log, every record's CRC
 * checked, nothing copied, no consumer state. The log is core's internals, not exported; this is
 * the one class outside core that reads it (checkstyle's suppressions say so).
 *
 * <p>Open the log only after the {@code Storage} that owns it is closed: opening recovers it.
 */
final class RawLogReplay {
    private RawLogReplay() {
    }

    /**
     * What a replay read.
     *
     * @param records      records read
     * @param payloadBytes their payloads summed
     * @param nanos        the time the reading took, the log's opening excluded
     * @param gaps         places where a sequence did not follow the one before (0 for a sound log)
     */
    record Replay(long records, long payloadBytes, long nanos, long gaps) {
    }

    /**
     * Opens the log (recovery, not timed), reads it from its first record to its end, and closes it.
     *
     * @param logDirectory a stream's {@code log} directory ({@code <storage>/streams/<name>/log})
     * @return what was read and how long it took
     */
    static Replay replay(Path logDirectory) {
        try (SegmentLog log = SegmentLog.open(logDirectory, LogConfig.builder().policy(FsyncPolicy.OS).build())) {
            LogReader reader = log.reader(1);
            long records = 0;
            long bytes = 0;
            long gaps = 0;
            long expected = log.firstSequence();
            long start = System.nanoTime();
            for (LogRecord r = reader.next(); r != null; r = reader.next()) {
                if (r.sequence() != expected) {
                    gaps++;
                }
                expected = r.sequence() + 1;
                bytes += r.payloadLength();
                records++;
            }
            return new Replay(records, bytes, System.nanoTime() - start, gaps);
        }
    }
}
