package io.ringbus.bench.federation;

import io.ringbus.bench.chart.SvgBarChart;

import java.util.List;
import java.util.Locale;

/** Draws a {@link FederationResults}: each case's rate, ringbus beside its floor. */
public final class FederationChart {
    private FederationChart() {
    }

    /**
     * @param d the results
     * @return the chart
     */
    public static SvgBarChart draw(FederationResults d) {
        SvgBarChart chart = new SvgBarChart("federation: ringbus nodes through NATS vs plain jnats",
                List.of(String.format(Locale.ROOT, "%s, %d cores, %,d messages of %d B, durable window %d",
                        d.natsServer(), d.cores(), d.messages(), d.payload(), d.window())));
        SvgBarChart.Panel rates = chart.panel("messages/s received by every receiver (durable: acknowledged)",
                "jnats / JetStream", "ringbus");
        SvgBarChart.Panel ratios = chart.panel("ringbus / its floor in the same case", "ratio").ratioAxis();
        for (int i = 0; i + 1 < d.rows().size(); i += 2) {
            FederationResults.Row floor = d.rows().get(i);
            FederationResults.Row ringbus = d.rows().get(i + 1);
            rates.row(floor.name(), floor.rate(), ringbus.rate());
            ratios.row(floor.name(), ringbus.ratio());
        }
        return chart;
    }
}
