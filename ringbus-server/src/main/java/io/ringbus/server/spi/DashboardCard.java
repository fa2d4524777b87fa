package io.ringbus.server.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A table an extension shows on the dashboard ({@link ExtensionContext#dashboard}): a title, a
 * line under it, column names and rows. A cell is a {@link String} (shown as it is, left-aligned)
 * or a {@link Number} (grouped digits, right-aligned); {@code null} is an empty cell. The dashboard
 * shows at most its first 50 rows and says how many there are. The dashboard is ROOT's alone, so
 * a card may name everything.
 *
 * @param title   the card's title
 * @param note    a line under the title (totals, say), or {@code null}
 * @param columns the column names
 * @param rows    the rows, each with one cell per column
 * @param empty   what the card says when there are no rows
 */
public record DashboardCard(String title, String note, List<String> columns, List<List<Object>> rows,
                           String empty) {
    /**
     * Checks the fields and copies the lists.
     *
     * @throws IllegalArgumentException naming the row when a row's length is not the number of columns
     */
    public DashboardCard {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(empty, "empty");
        columns = List.copyOf(columns);
        rows = rows.stream().map(row -> Collections.unmodifiableList(new ArrayList<>(row)))
                .toList();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).size() != columns.size()) {
                throw new IllegalArgumentException("dashboard card '" + title + "': row " + i + " has "
                        + rows.get(i).size() + " cells for " + columns.size() + " columns");
            }
        }
    }
}
