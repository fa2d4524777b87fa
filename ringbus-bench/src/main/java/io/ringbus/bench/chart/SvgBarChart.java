package io.ringbus.bench.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A horizontal bar chart written as a standalone SVG document, without dependencies: a title,
 * subtitle lines, then panels stacked top to bottom. A panel has one row per label and one bar per
 * series in each row, its own linear axis from zero with ticks, an optional dashed reference line
 * (a baseline to read ratios against) and an optional note per row (a ratio, say) printed after
 * the row's first value. Bar widths are proportional to the values within a panel. Not
 * thread-safe.
 *
 * <p>All text is XML-escaped. A value that is NaN (a run that failed) gets no bar, and "no result"
 * instead of its value. Each bar carries {@code class="bar"}, {@code data-series} and
 * {@code data-value} attributes and a {@code <title>} tooltip, so the file can be read back.
 */
public final class SvgBarChart {
    /** Width of the whole picture, in pixels. */
    public static final int WIDTH = 880;
    /** Height of one bar, in pixels. */
    public static final int BAR_HEIGHT = 14;

    private static final int MARGIN = 16;
    private static final int BAR_GAP = 2;
    private static final int ROW_GAP = 8;
    private static final int MIN_VALUE_SPACE = 60;
    private static final int MAX_LABEL_WIDTH = 300;
    /** Rough width of a 12 px sans-serif character; SVG cannot measure text for us. */
    private static final double CHAR_WIDTH = 6.8;
    private static final String[] COLORS = {"#3b6fb6", "#e08a2c", "#4a9d5b", "#b04a6e", "#7a68b8", "#8c8c8c"};

    private final String title;
    private final List<String> subtitle;
    private final List<Panel> panels = new ArrayList<>();

    /**
     * @param title    the chart's title
     * @param subtitle lines under it (where it ran, the workload); may be empty
     */
    public SvgBarChart(String title, List<String> subtitle) {
        this.title = title;
        this.subtitle = List.copyOf(subtitle);
    }

    /**
     * Adds a panel below the previous ones.
     *
     * @param title  the panel's title, with the unit of its values
     * @param series the names of the bars in each row, at least one; a legend shows when there are several
     * @return the panel, to add rows to
     * @throws IllegalArgumentException when there is no series
     */
    public Panel panel(String title, String... series) {
        if (series.length == 0) {
            throw new IllegalArgumentException("a panel needs at least one series: series=0, panel='" + title + "'");
        }
        Panel panel = new Panel(title, List.of(series));
        panels.add(panel);
        return panel;
    }

    /** @return whether no panel has a row */
    public boolean isEmpty() {
        return panels.stream().allMatch(p -> p.rows.isEmpty());
    }

    /** One panel: rows of bars sharing an axis. */
    public static final class Panel {
        private final String title;
        private final List<String> series;
        private final List<Row> rows = new ArrayList<>();
        private String referenceLabel;
        private double reference = Double.NaN;
        private boolean ratioAxis;

        private Panel(String title, List<String> series) {
            this.title = title;
            this.series = series;
        }

        /**
         * @param label  the row's label
         * @param values one per series, in series order; NaN for a missing result, never negative
         * @return this panel
         * @throws IllegalArgumentException when the count differs from the series' or a value is negative or infinite
         */
        public Panel row(String label, double... values) {
            if (values.length != series.size()) {
                throw new IllegalArgumentException("a row needs one value per series: values=" + values.length
                        + ", series=" + series.size() + ", row='" + label + "'");
            }
            for (double v : values) {
                if (v < 0 || Double.isInfinite(v)) {
                    throw new IllegalArgumentException("values must be finite and >= 0: value=" + v + ", row='" + label + "'");
                }
            }
            rows.add(new Row(label, values.clone()));
            return this;
        }

        /**
         * @param text printed after the last added row's first value, e.g. "1.52x disruptor-inline"
         * @return this panel
         * @throws IllegalStateException when there is no row yet
         */
        public Panel note(String text) {
            if (rows.isEmpty()) {
                throw new IllegalStateException("a note belongs to a row: add one first, note='" + text + "'");
            }
            rows.getLast().note = text;
            return this;
        }

        /**
         * @param label what the line stands for, e.g. "disruptor-inline" or "ideal"
         * @param value where the dashed line is drawn; NaN for none
         * @return this panel
         */
        public Panel reference(String label, double value) {
            this.referenceLabel = label;
            this.reference = value;
            return this;
        }

        /**
         * Adds a second row of ticks under the axis, in multiples of the reference value ("0.5x", "1x"),
         * to read each bar as a ratio to the reference.
         *
         * @return this panel
         */
        public Panel ratioAxis() {
            this.ratioAxis = true;
            return this;
        }

        private double max() {
            double max = Double.isNaN(reference) ? 0 : reference;
            for (Row r : rows) {
                for (double v : r.values) {
                    if (!Double.isNaN(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
            return max;
        }
    }

    private static final class Row {
        final String label;
        final double[] values;
        String note;

        Row(String label, double[] values) {
            this.label = label;
            this.values = values;
        }
    }

    /** @return the SVG document */
    public String render() {
        int labelWidth = 0;
        int valueWidth = MIN_VALUE_SPACE;
        for (Panel p : panels) {
            for (Row r : p.rows) {
                labelWidth = Math.max(labelWidth, (int) Math.ceil(r.label.length() * CHAR_WIDTH));
                for (int s = 0; s < r.values.length; s++) {
                    // value labels are 11 px: about 11/12 of a 12 px character
                    valueWidth = Math.max(valueWidth, 8 + (int) Math.ceil(valueText(r, s).length() * CHAR_WIDTH * 11 / 12));
                }
            }
        }
        labelWidth = Math.min(MAX_LABEL_WIDTH, labelWidth) + 12;
        int plotLeft = MARGIN + labelWidth;
        int plotWidth = Math.max(WIDTH / 4, WIDTH - plotLeft - valueWidth - MARGIN);
        StringBuilder body = new StringBuilder();
        int y = MARGIN + 18;
        body.append(text(MARGIN, y, "title", "font-size=\"16\" font-weight=\"bold\"", title));
        for (String line : subtitle) {
            y += 16;
            body.append(text(MARGIN, y, "subtitle", "fill=\"#555\" font-size=\"11\"", line));
        }
        y += 14;
        for (Panel p : panels) {
            y = panel(body, p, y, plotLeft, plotWidth);
        }
        int height = y + MARGIN;
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + WIDTH + "\" height=\"" + height
                + "\" viewBox=\"0 0 " + WIDTH + " " + height + "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
                + " font-size=\"12\">\n"
                + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
                + body
                + "</svg>\n";
    }

    private static int panel(StringBuilder out, Panel p, int top, int plotLeft, int plotWidth) {
        int y = top + 22;
        out.append(text(MARGIN, y, "panel-title", "font-size=\"13\" font-weight=\"bold\"", p.title));
        if (p.series.size() > 1) {
            int x = plotLeft;
            y += 8;
            for (int s = 0; s < p.series.size(); s++) {
                out.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
                        x, y, COLORS[s % COLORS.length]));
                out.append(text(x + 14, y + 9, "legend", "font-size=\"11\"", p.series.get(s)));
                x += 24 + (int) Math.ceil(p.series.get(s).length() * CHAR_WIDTH);
            }
            y += 10;
        }
        y += 10;
        int rowsTop = y;
        Axis axis = Axis.of(p.max());
        int groupHeight = p.series.size() * BAR_HEIGHT + (p.series.size() - 1) * BAR_GAP;
        StringBuilder bars = new StringBuilder();
        for (Row r : p.rows) {
            bars.append(text(plotLeft - 8, y + groupHeight / 2 + 4, "label", "text-anchor=\"end\"", shorten(r.label)));
            for (int s = 0; s < r.values.length; s++) {
                int barY = y + s * (BAR_HEIGHT + BAR_GAP);
                double v = r.values[s];
                double end;
                if (Double.isNaN(v)) {
                    end = plotLeft;
                } else {
                    double width = axis.max == 0 ? 0 : v / axis.max * plotWidth;
                    bars.append(String.format(Locale.ROOT,
                            "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\""
                                    + " data-series=\"%s\" data-value=\"%s\"><title>%s</title></rect>\n",
                            plotLeft, barY, width, BAR_HEIGHT, COLORS[s % COLORS.length], escape(p.series.get(s)),
                            Double.toString(v), escape(r.label + ", " + p.series.get(s) + ": " + format(v))));
                    end = plotLeft + width;
                }
                bars.append(text((int) Math.round(end) + 4, barY + BAR_HEIGHT - 3, "value", "font-size=\"11\"",
                        valueText(r, s)));
            }
            y += groupHeight + ROW_GAP;
        }
        int rowsBottom = y - ROW_GAP + 4;
        for (int i = 0; i <= axis.ticks; i++) {
            double v = i * axis.step;
            double x = plotLeft + (axis.max == 0 ? 0 : v / axis.max * plotWidth);
            out.append(String.format(Locale.ROOT, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"%s\"/>\n",
                    x, rowsTop - 4, x, rowsBottom, i == 0 ? "#444" : "#e4e4e4"));
            out.append(String.format(Locale.ROOT, "<text class=\"tick\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\""
                    + " font-size=\"10\" fill=\"#555\">%s</text>\n", x, rowsBottom + 12, escape(format(v))));
        }
        out.append(bars);
        if (p.reference > 0 && axis.max > 0) {
            double x = plotLeft + p.reference / axis.max * plotWidth;
            out.append(String.format(Locale.ROOT, "<line class=\"reference\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\""
                    + " stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>\n", x, rowsTop - 6, x, rowsBottom));
            if (p.ratioAxis) {
                rowsBottom += 12;
                Axis ratios = Axis.of(axis.max / p.reference);
                for (int i = 1; i * ratios.step * p.reference <= axis.max * (1 + 1e-9); i++) {
                    double rx = plotLeft + i * ratios.step * p.reference / axis.max * plotWidth;
                    out.append(String.format(Locale.ROOT, "<text class=\"ratio-tick\" x=\"%.2f\" y=\"%d\""
                            + " text-anchor=\"middle\" font-size=\"10\" fill=\"#c0392b\">%sx</text>\n",
                            rx, rowsBottom + 12, format(i * ratios.step)));
                }
            }
            out.append(String.format(Locale.ROOT, "<text class=\"reference-label\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\""
                    + " font-size=\"10\" fill=\"#c0392b\">%s</text>\n", x, rowsBottom + 24, escape(p.referenceLabel)));
            rowsBottom += 12;
        }
        return rowsBottom + 18;
    }

    /** A label cut to what fits the label column, with an ellipsis. */
    private static String shorten(String label) {
        int fits = (int) (MAX_LABEL_WIDTH / CHAR_WIDTH);
        return label.length() <= fits ? label : label.substring(0, fits - 1) + "\u2026";
    }

    /** The text after a bar: its value, and the row's note after the first bar. */
    private static String valueText(Row r, int series) {
        double v = r.values[series];
        String shown = Double.isNaN(v) ? "no result" : format(v);
        return series == 0 && r.note != null ? shown + " (" + r.note + ")" : shown;
    }

    /** A linear axis from zero: {@code ticks} steps of a 1, 2, 2.5 or 5 times a power of ten. */
    private record Axis(double step, int ticks, double max) {
        static Axis of(double dataMax) {
            if (!(dataMax > 0)) {
                return new Axis(1, 1, 1);
            }
            double raw = dataMax / 5;
            double power = Math.pow(10, Math.floor(Math.log10(raw)));
            double step = power * 10;
            for (double m : new double[] {1, 2, 2.5, 5, 10}) {
                if (m * power >= raw) {
                    step = m * power;
                    break;
                }
            }
            int ticks = (int) Math.ceil(dataMax / step - 1e-9);
            return new Axis(step, ticks, ticks * step);
        }
    }

    /**
     * Formats a value with three significant digits and a k, M or G suffix: 1234 is "1.23k".
     *
     * @param v a finite value
     * @return the short text
     */
    static String format(double v) {
        double a = Math.abs(v);
        if (a >= 1e9) {
            return significant(v / 1e9) + "G";
        }
        if (a >= 1e6) {
            return significant(v / 1e6) + "M";
        }
        if (a >= 1e3) {
            return significant(v / 1e3) + "k";
        }
        return significant(v);
    }

    private static String significant(double v) {
        double a = Math.abs(v);
        String s = String.format(Locale.ROOT, a >= 100 || a == 0 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
        if (s.contains(".")) {
            s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return s;
    }

    private static String text(int x, int y, String cssClass, String attributes, String content) {
        return "<text class=\"" + cssClass + "\" x=\"" + x + "\" y=\"" + y + "\" " + attributes + ">" + escape(content)
                + "</text>\n";
    }

    /**
     * @param s any text
     * @return the text with XML's five special characters escaped and characters XML 1.0 forbids replaced by '?'
     */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0xFFFE || c == 0xFFFF ? '?' : c);
            }
        }
        return out.toString();
    }
}
