package io.ringbus.outbox.internal;

/**
 * An outbox was opened without migrating where it has no schema at all (no version table), as
 * opposed to an old one: the command line answers it with "run {@code bin/outbox migrate}".
 */
public final class MissingSchemaException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String schema;
    private final String table;

    /**
     * @param schema the schema looked in
     * @param table  the outbox table looked for
     */
    public MissingSchemaException(String schema, String table) {
        super("no outbox schema in " + schema + " (no table " + versionTable(schema, table)
                + "); create it with Outbox.builder().migrate(true) or `bin/outbox migrate`");
        this.schema = schema;
        this.table = table;
    }

    /** @return the schema looked in */
    public String schema() {
        return schema;
    }

    /** @return the table that records the schema's version, which was not found */
    public String versionTable() {
        return versionTable(schema, table);
    }

    private static String versionTable(String schema, String table) {
        return schema + "." + table + "_schema";
    }
}
