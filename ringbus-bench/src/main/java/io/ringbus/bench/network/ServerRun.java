package io.ringbus.bench.network;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything measured on one server process of the comparison.
 *
 * @param server     the server
 * @param command    the command line it ran with
 * @param peakRssKiB its peak resident set size over all cases (VmHWM), -1 when unknown
 * @param stats      the counters it printed when stopped (ringbus-server), empty when none
 * @param cases      one result per case, in run order
 */
public record ServerRun(ServerKind server, List<String> command, long peakRssKiB, Map<String, Long> stats,
                        List<CaseResult> cases) {
    /** Copies the lists. */
    public ServerRun {
        command = List.copyOf(command);
        stats = Collections.unmodifiableMap(new LinkedHashMap<>(stats));
        cases = List.copyOf(cases);
    }

    /** @return the peak RSS in MiB, or NaN when unknown */
    public double peakRssMiB() {
        return peakRssKiB < 0 ? Double.NaN : peakRssKiB / 1024.0;
    }
}
