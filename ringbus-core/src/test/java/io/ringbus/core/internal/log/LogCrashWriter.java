package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The process {@link SegmentLogCrashTest} kills: opens a log, then appends from several threads
 * until it is killed, printing {@code ack <thread> <counter> <sequence>} once a record is
 * acknowledged. Runs in a JVM of its own, unnamed on the class path.
 *
 * <p>Arguments: {@code <dir> <policy> <round> <threads> <segmentBytes> <maxBytes> <intervalMillis>}.
 * Under {@code ALWAYS} a record is acknowledged after {@code awaitDurable} returned for it (an
 * {@code fsync} covers it); under {@code INTERVAL} and {@code OS} as soon as {@code append}
 * returned (the flusher's {@code fsync} comes later, or never), which the log promises is enough
 * to survive a process kill. Each line is one {@code write} to the
 * stdout pipe, so the test reads whole lines only: an ack it reads was printed after the record's
 * acknowledgement, never before.
 */
final class LogCrashWriter {
    /** Every payload starts with its key; the rest is filler derived from it, checked byte for byte. */
    private static final int MAX_FILLER = 97;

    private LogCrashWriter() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        FsyncPolicy policy = FsyncPolicy.valueOf(args[1]);
        int round = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        LogConfig config = LogConfig.builder().policy(policy).segmentBytes(Long.parseLong(args[4]))
                .maxBytes(Long.parseLong(args[5])).intervalMillis(Long.parseLong(args[6])).build();
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        SegmentLog log = SegmentLog.open(dir, config);
        print(out, "opened " + log.firstSequence() + " " + log.lastSequence());
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread.ofPlatform().name("appender-" + t)
                    .start(() -> appendUntilKilled(log, out, round, thread, policy == FsyncPolicy.ALWAYS));
        }
    }

    private static void appendUntilKilled(SegmentLog log, FileOutputStream out, int round, int thread,
                                          boolean awaitFsync) {
        String subject = "crash.r" + round + ".t" + thread;
        for (long counter = 0; ; counter++) {
            long sequence = log.append(subject, null, payload(round, thread, counter));
            if (awaitFsync) {
                log.awaitDurable(sequence);
            }
            print(out, "ack " + thread + " " + counter + " " + sequence);
        }
    }

    /** One {@code write} per line: a pipe write of under 4 KiB is atomic. */
    private static void print(FileOutputStream out, String line) {
        try {
            out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the payload of record {@code counter} of writer {@code thread} in {@code round} */
    static byte[] payload(int round, int thread, long counter) {
        String key = "r" + round + " t" + thread + " c" + counter + " ";
        int filler = (int) ((counter * 31 + thread) % MAX_FILLER);
        StringBuilder payload = new StringBuilder(key.length() + filler).append(key);
        for (int i = 0; i < filler; i++) {
            payload.append((char) ('a' + (counter + i) % 26));
        }
        return payload.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Reads the key back from a payload and checks the rest of it.
     *
     * @return {@code {round, thread, counter}}
     * @throws AssertionError if the payload is not one {@link #payload} made
     */
    static long[] key(byte[] payload) {
        String text = new String(payload, StandardCharsets.US_ASCII);
        String[] parts = text.split(" ", 4);
        if (parts.length < 3 || !parts[0].startsWith("r") || !parts[1].startsWith("t") || !parts[2].startsWith("c")) {
            throw new AssertionError("not a crash-test payload: " + text);
        }
        long[] key = {Long.parseLong(parts[0].substring(1)), Long.parseLong(parts[1].substring(1)),
            Long.parseLong(parts[2].substring(1))};
        byte[] expected = payload((int) key[0], (int) key[1], key[2]);
        if (!Arrays.equals(payload, expected)) {
            throw new AssertionError("payload damaged: " + text);
        }
        return key;
    }
}
