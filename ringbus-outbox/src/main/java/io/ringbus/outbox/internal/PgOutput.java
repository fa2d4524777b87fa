package io.ringbus.outbox.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the messages of PostgreSQL's {@code pgoutput} logical decoding plugin, protocol version 1:
 * the transaction boundaries, relation descriptions and inserted rows a WAL relay needs; every other
 * message is skipped. Column values arrive in text form.
 *
 * <p>Not thread-safe: one per replication stream.
 */
public final class PgOutput {
    /** What one message was. */
    public enum Kind { BEGIN, COMMIT, INSERT, OTHER }

    private final Map<Integer, Relation> relations = new HashMap<>();
    private Kind kind;
    private long commitLsn;
    private long endLsn;
    private int xid;
    private Relation relation;
    private String[] values;

    /** A table as the stream described it: its name and column names in tuple order. */
    public record Relation(String schema, String table, String[] columns) {
        /** @return the index of a column, -1 when absent */
        public int column(String name) {
            for (int i = 0; i < columns.length; i++) {
                if (columns[i].equals(name)) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * Reads one message.
     *
     * @param message a message as the replication stream returned it (position at its start)
     * @return what it was; the accessors below describe it until the next call
     * @throws IllegalStateException naming the relation when an insert refers to one never described
     */
    public Kind read(ByteBuffer message) {
        byte type = message.get();
        relation = null;
        values = null;
        switch (type) {
            case 'B' -> {
                message.getLong(); // final LSN
                message.getLong(); // commit time
                xid = message.getInt();
                kind = Kind.BEGIN;
            }
            case 'C' -> {
                message.get(); // flags
                commitLsn = message.getLong();
                endLsn = message.getLong();
                kind = Kind.COMMIT;
            }
            case 'R' -> {
                int id = message.getInt();
                String schema = string(message);
                String table = string(message);
                message.get(); // replica identity
                int count = message.getShort();
                String[] columns = new String[count];
                for (int i = 0; i < count; i++) {
                    message.get(); // flags
                    columns[i] = string(message);
                    message.getInt(); // type oid
                    message.getInt(); // type modifier
                }
                relations.put(id, new Relation(schema, table, columns));
                kind = Kind.OTHER;
            }
            case 'I' -> {
                int id = message.getInt();
                relation = relations.get(id);
                if (relation == null) {
                    throw new IllegalStateException("pgoutput: insert into relation " + id + " before its description");
                }
                message.get(); // 'N': a new tuple
                values = tuple(message);
                kind = Kind.INSERT;
            }
            default -> kind = Kind.OTHER;
        }
        return kind;
    }

    /** @return the transaction's 32-bit id, as the server numbers it (after {@link Kind#BEGIN}) */
    public int xid() {
        return xid;
    }

    /** @return the commit's LSN (after {@link Kind#COMMIT}) */
    public long commitLsn() {
        return commitLsn;
    }

    /** @return the LSN just past the commit record (after {@link Kind#COMMIT}): the position to confirm */
    public long endLsn() {
        return endLsn;
    }

    /** @return the table of the insert (after {@link Kind#INSERT}) */
    public Relation relation() {
        return relation;
    }

    /** @return the inserted row's values in text form, {@code null} for SQL NULL (after {@link Kind#INSERT}) */
    public String[] values() {
        return values;
    }

    private static String[] tuple(ByteBuffer message) {
        int count = message.getShort();
        String[] result = new String[count];
        for (int i = 0; i < count; i++) {
            byte kind = message.get();
            if (kind == 't' || kind == 'b') {
                byte[] bytes = new byte[message.getInt()];
                message.get(bytes);
                result[i] = new String(bytes, StandardCharsets.UTF_8);
            }
            // 'n' (null) and 'u' (unchanged TOAST, never in an insert) carry no value
        }
        return result;
    }

    private static String string(ByteBuffer message) {
        int start = message.position();
        int end = start;
        while (message.get(end) != 0) {
            end++;
        }
        String text = new String(message.array(), message.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
        message.position(end + 1);
        return text;
    }
}
