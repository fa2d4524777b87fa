package io.ringbus.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with a header row, columns padded to their widest cell. The first column is
 * left-aligned, the others right-aligned (they hold numbers). Not thread-safe.
 */
public final class TextTable {
    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();

    /**
     * @param header the column titles; at least one
     * @throws IllegalArgumentException when there is no column
     */
    public TextTable(String... header) {
        if (header.length == 0) {
            throw new IllegalArgumentException("a table needs at least one column: columns=0");
        }
        this.header = header.clone();
    }

    /**
     * @param cells one cell per column
     * @return this table
     * @throws IllegalArgumentException when the row's width differs from the header's
     */
    public TextTable row(String... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, the header " + header.length
                    + ": cells=" + cells.length);
        }
        rows.add(cells.clone());
        return this;
    }

    /** @return the table, one line per row, each line ending with a newline */
    public String render() {
        int[] width = new int[header.length];
        measure(header, width);
        for (String[] row : rows) {
            measure(row, width);
        }
        StringBuilder out = new StringBuilder();
        line(out, header, width);
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            rule.append(i == 0 ? "" : "  ").append("-".repeat(width[i]));
        }
        out.append(rule).append('\n');
        for (String[] row : rows) {
            line(out, row, width);
        }
        return out.toString();
    }

    private static void measure(String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            width[i] = Math.max(width[i], cells[i].length());
        }
    }

    private static void line(StringBuilder out, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            String pad = " ".repeat(width[i] - cells[i].length());
            if (i == 0) {
                out.append(cells[i]).append(pad);
            } else {
                out.append("  ").append(pad).append(cells[i]);
            }
        }
        out.append('\n');
    }
}
