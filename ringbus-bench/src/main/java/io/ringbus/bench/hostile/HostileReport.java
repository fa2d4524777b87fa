package io.ringbus.bench.hostile;

import io.ringbus.bench.TextTable;

import java.util.List;
import java.util.Locale;

/** The {@code hostile} scenario's table: one row per attack and server. */
final class HostileReport {
    private final List<HostileResult> results;

    /** @param results every run, in run order */
    HostileReport(List<HostileResult> results) {
        this.results = List.copyOf(results);
    }

    /** @return the table, then one line per failure naming what failed */
    String text() {
        TextTable table = new TextTable("attack", "server", "up", "round trip p50/p99/max ms", "login max ms",
                "/healthz p99 ms", "js bystander p99/max ms", "failed asks", "server CPU s", "verdict");
        StringBuilder notes = new StringBuilder();
        for (HostileResult r : results) {
            Probe.Figures rtt = r.probe("round trip");
            Probe.Figures login = r.probe("valid login");
            Probe.Figures healthz = r.probe("/healthz");
            Probe.Figures js = r.probe(Probes.JETSTREAM);
            long failed = r.probes().stream().mapToLong(Probe.Figures::failed).sum();
            table.row(r.attack(), r.server(), r.alive() && !r.outOfMemory() ? "yes" : "NO",
                    String.format(Locale.ROOT, "%.1f / %.1f / %.0f", rtt.p50Millis(), rtt.p99Millis(), rtt.maxMillis()),
                    String.format(Locale.ROOT, "%.0f", login.maxMillis()),
                    String.format(Locale.ROOT, "%.1f", healthz.p99Millis()),
                    js == null ? "-" : String.format(Locale.ROOT, "%.1f / %.0f", js.p99Millis(), js.maxMillis()),
                    Long.toString(failed),
                    r.cpuMillis() < 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.cpuMillis() / 1000.0),
                    r.goalsMet() ? "ok" : r.survived() ? "slow" : "FAILED");
            for (Probe.Figures p : r.probes()) {
                if (p.firstFailure() != null) {
                    notes.append(String.format(Locale.ROOT, "  %s vs %s: %s failed %d times, first: %s%n",
                            r.attack(), r.server(), p.what(), p.failed(), p.firstFailure()));
                }
            }
            for (String note : r.notes()) {
                notes.append(String.format(Locale.ROOT, "  %s vs %s: %s%n", r.attack(), r.server(), note));
            }
            if (r.attackError() != null) {
                notes.append(String.format(Locale.ROOT, "  %s vs %s: the attack stopped early: %s%n", r.attack(),
                        r.server(), r.attackError()));
            }
            if (!r.healthyAfter()) {
                notes.append(String.format(Locale.ROOT, "  %s vs %s: no fresh login and /healthz after the attack%n",
                        r.attack(), r.server()));
            }
        }
        return table.render() + notes;
    }

    /** @return whether every server survived every attack (goals aside) */
    boolean survived() {
        return results.stream().allMatch(HostileResult::survived);
    }
}
