package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The messages a stream removed on request (JetStream's {@code STREAM.PURGE} and
 * {@code STREAM.MSG.DELETE}), kept durably in {@value #NAME} beside the log: a floor (every
 * sequence below it is removed: a purge) and one bit per removed sequence at or above it. The log
 * stays append-only; readers skip removed records, and their bytes leave the disk with their
 * segment.
 *
 * <p><b>Durability.</b> Every change rewrites the file with {@link DurableFiles#replace} (temporary
 * file, fsync, rename, directory fsync) before it returns: a removal answered is never undone by a
 * crash. The file is {@code 8 bytes floor} then the bit set; its size is one bit per sequence from
 * the floor to the newest removed one (a stream that removes scattered messages from a long tail pays
 * that per change; the floor moves up with retention, see {@link #retainFrom}).
 *
 * <p>Thread-safe.
 */
final class Removals {
    static final String NAME = "removed";

    private final Path file;
    private final DurableFiles files;
    private final ReentrantLock lock = new ReentrantLock();
    /** Every sequence below it is removed. */
    private long floor;
    /** Bit {@code i}: sequence {@code floor + i} is removed. */
    private BitSet removed;

    private Removals(Path file, DurableFiles files, long floor, BitSet removed) {
        this.file = file;
        this.files = files;
        this.floor = floor;
        this.removed = removed;
    }

    /** Reads the stream's removals (none when the file does not exist). */
    static Removals open(Path streamDir, DurableFiles files) throws IOException {
        Path file = streamDir.resolve(NAME);
        try {
            ByteBuffer content = ByteBuffer.wrap(Files.readAllBytes(file));
            if (content.remaining() < Long.BYTES) {
                // Replaced atomically, so short only after a cut under a policy that does not force
                // (os) or damage: the store still opens, with the removals the log itself shows.
                files.repaired(file, content.remaining() + " bytes, at least " + Long.BYTES + " expected: the "
                        + "purges and deletes it kept are forgotten (only a store that does not force its files, "
                        + "fsync=os, loses them at a power cut)");
                return new Removals(file, files, 1, new BitSet());
            }
            long floor = content.getLong();
            return new Removals(file, files, floor, BitSet.valueOf(content));
        } catch (NoSuchFileException e) {
            return new Removals(file, files, 1, new BitSet());
        }
    }

    boolean isRemoved(long sequence) {
        lock.lock();
        try {
            return sequence < floor || sequence - floor < Integer.MAX_VALUE && removed.get((int) (sequence - floor));
        } finally {
            lock.unlock();
        }
    }

    /** @return every sequence below it is removed */
    long floor() {
        lock.lock();
        try {
            return floor;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return how many of the sequences {@code [from, to]} are removed
     */
    long countRemoved(long from, long to) {
        lock.lock();
        try {
            if (to < from) {
                return 0;
            }
            long below = Math.max(0, Math.min(floor, to + 1) - from);
            long lo = Math.max(from, floor) - floor;
            long hi = to - floor + 1;
            long bits = lo >= hi ? 0 : removed.get((int) lo, (int) Math.min(hi, Integer.MAX_VALUE)).cardinality();
            return below + bits;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes every sequence below {@code newFloor} and the sequences {@code extra} durably.
     *
     * @param newFloor the new floor (lower values keep the present one)
     * @param extra    sequences at or above the floor to remove, or null
     * @throws IOException when the file cannot be written (nothing changed then)
     */
    void remove(long newFloor, long[] extra) throws IOException {
        lock.lock();
        try {
            long nextFloor = Math.max(floor, newFloor);
            BitSet next = shifted(removed, floor, nextFloor);
            if (extra != null) {
                for (long sequence : extra) {
                    if (sequence >= nextFloor) {
                        if (sequence - nextFloor >= Integer.MAX_VALUE) {
                            throw new IOException("cannot remove sequence " + sequence + ": more than "
                                    + Integer.MAX_VALUE + " past the oldest removal " + nextFloor);
                        }
                        next.set((int) (sequence - nextFloor));
                    }
                }
            }
            write(nextFloor, next);
            floor = nextFloor;
            removed = next;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves the floor up to the log's first retained sequence (retention deleted what lies below),
     * keeping the bit set small; written only when the floor moves by 64k or more.
     */
    void retainFrom(long firstRetained) throws IOException {
        lock.lock();
        try {
            if (firstRetained - floor >= 1 << 16) {
                BitSet next = shifted(removed, floor, firstRetained);
                write(firstRetained, next);
                floor = firstRetained;
                removed = next;
            }
        } finally {
            lock.unlock();
        }
    }

    private static BitSet shifted(BitSet bits, long from, long to) {
        if (to == from) {
            return (BitSet) bits.clone();
        }
        int shift = (int) Math.min(Integer.MAX_VALUE, to - from);
        return bits.get(shift, Math.max(shift, bits.length()));
    }

    private void write(long newFloor, BitSet bits) throws IOException {
        byte[] set = bits.toByteArray();
        ByteBuffer content = ByteBuffer.allocate(Long.BYTES + set.length).putLong(newFloor).put(set).flip();
        files.replace(file, content);
    }
}
