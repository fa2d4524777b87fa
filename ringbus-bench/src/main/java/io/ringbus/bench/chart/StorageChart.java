package io.ringbus.bench.chart;

import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.storage.StorageResults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The storage scenario's chart, for {@link ResultCharts}: publish rates per case with one bar per
 * ringbus policy and one for JetStream, p99 publish latencies, replay and acknowledgement rates,
 * restart times, recovery times after a kill and a cut. Stateless.
 */
final class StorageChart {
    private StorageChart() {
    }

    /**
     * @param doc a storage results document
     * @return its chart
     */
    static SvgBarChart draw(StorageResults doc) {
        List<String> subtitle = new ArrayList<>();
        StorageResults.Settings s = doc.settings();
        StorageResults.Fsync fsync = doc.fsync();
        if (s != null) {
            subtitle.add(String.format(Locale.ROOT, "ringbus: in-process StoredStream.append, INTERVAL %d ms;"
                    + " async window %,d per publisher (both); %.1f s measured per run", s.intervalMillis(), s.window(),
                    s.publishSeconds()));
        }
        StorageResults.Machine m = doc.machine();
        if (m != null) {
            subtitle.add(String.format(Locale.ROOT, "%s%s; %s", m.natsServer() == null ? "no peer" : m.natsServer()
                    + " (file store default: fsync every 2 min), nats.go " + m.natsGo() + " over loopback",
                    fsync == null ? "" : String.format(Locale.ROOT, "; disk %,.0f fsyncs/s", fsync.perSecond()),
                    m.fileStore()));
        }
        subtitle.add(jvm(doc.jvm(), doc.cores()));
        SvgBarChart chart = new SvgBarChart("ringbus local store vs nats-server JetStream file store", subtitle);
        List<StorageResults.PublishRow> publish = list(doc.publish());
        List<String> series = new ArrayList<>();
        Map<String, Map<String, StorageResults.PublishRow>> byCase = new LinkedHashMap<>();
        for (StorageResults.PublishRow r : publish) {
            String name = "ringbus".equals(r.system()) ? "ringbus " + r.policy() : "JetStream " + r.policy();
            if (!series.contains(name)) {
                series.add(name);
            }
            byCase.computeIfAbsent(r.mode() + "|" + label(r), k -> new LinkedHashMap<>()).put(name, r);
        }
        String[] names = series.toArray(String[]::new);
        for (String mode : List.of("async", "sync")) {
            SvgBarChart.Panel panel = null;
            for (Map.Entry<String, Map<String, StorageResults.PublishRow>> e : byCase.entrySet()) {
                if (!e.getKey().startsWith(mode + "|")) {
                    continue;
                }
                if (panel == null) {
                    panel = chart.panel("durable publish, " + mode + ": messages per second (higher is better)", names);
                }
                double[] values = new double[names.length];
                List<String> ratios = new ArrayList<>();
                for (int i = 0; i < names.length; i++) {
                    StorageResults.PublishRow r = e.getValue().get(names[i]);
                    values[i] = r == null || r.failure() != null ? Double.NaN : r.perSecond();
                    if (r != null && !Double.isNaN(r.ratioToJetStream())) {
                        ratios.add(String.format(Locale.ROOT, "%s %.2fx", r.policy(), r.ratioToJetStream()));
                    }
                }
                panel.row(e.getKey().substring(mode.length() + 1), values);
                if (!ratios.isEmpty()) {
                    panel.note("ringbus/JetStream: " + String.join(", ", ratios));
                }
            }
        }
        if (!byCase.isEmpty()) {
            SvgBarChart.Panel latency = chart.panel("durable publish: p99 latency in ms, call to acknowledgement"
                    + " (lower is better)", names);
            for (Map.Entry<String, Map<String, StorageResults.PublishRow>> e : byCase.entrySet()) {
                double[] values = new double[names.length];
                for (int i = 0; i < names.length; i++) {
                    StorageResults.PublishRow r = e.getValue().get(names[i]);
                    values[i] = r == null || r.failure() != null || Double.isNaN(r.p99Micros()) ? Double.NaN
                            : r.p99Micros() / 1e3;
                }
                latency.row(e.getKey().replace('|', ' '), values);
            }
        }
        List<StorageResults.ReadRow> read = list(doc.read());
        if (!read.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT, "read back %,d records of %d B: records"
                    + " per second (higher is better)", s == null ? 0 : s.records(), s == null ? 0
                    : s.readPayloadBytes()), "records/s");
            for (StorageResults.ReadRow r : read) {
                panel.row(r.part() + ": " + ("ringbus".equals(r.system()) ? "ringbus " : "JetStream ") + r.reader(),
                        r.failure() != null ? Double.NaN : r.perSecond());
                if (!Double.isNaN(r.ratioToJetStream())) {
                    panel.note(String.format(Locale.ROOT, "%.2fx JetStream", r.ratioToJetStream()));
                }
            }
        }
        List<StorageResults.RestartRow> restart = list(doc.restart());
        if (!restart.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel("restart: ms until the first record is read (lower is better;"
                    + " JetStream from its process start)", "ms");
            for (StorageResults.RestartRow r : restart) {
                panel.row(String.format(Locale.ROOT, "%s, %,.0f MiB log", "ringbus".equals(r.system()) ? "ringbus"
                        : "JetStream", r.logBytes() / 1048576.0), r.failure() != null ? Double.NaN
                        : r.firstRecordMillis());
            }
        }
        List<StorageResults.RecoveryRow> recovery = list(doc.recovery());
        if (!recovery.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel("recovery: ms from the process start to the first PubAck, page cache "
                    + recovery.getFirst().pageCache() + " (lower is better)", "ms");
            for (StorageResults.RecoveryRow r : recovery) {
                panel.row(String.format(Locale.ROOT, "%s %s, %.1f GiB", r.system(), r.scenario(),
                        r.logBytes() / 1073741824.0), r.failure() != null ? Double.NaN : r.firstAckMillis());
            }
        }
        return chart;
    }

    private static String label(StorageResults.PublishRow r) {
        String size = r.payloadBytes() >= 1_024 && r.payloadBytes() % 1_024 == 0 ? r.payloadBytes() / 1_024 + " KiB"
                : r.payloadBytes() + " B";
        return String.format(Locale.ROOT, "%s x%d", size, r.publishers());
    }

    private static String jvm(JvmDescription.Vm jvm, int cores) {
        if (jvm == null) {
            return "";
        }
        return String.format(Locale.ROOT, "%s %s (%s), %d cores, max heap %d MiB", jvm.vmName(), jvm.version(),
                jvm.vendor(), cores, jvm.maxHeapMiB());
    }

    private static <T> List<T> list(List<T> list) {
        return list == null ? List.of() : list;
    }
}
