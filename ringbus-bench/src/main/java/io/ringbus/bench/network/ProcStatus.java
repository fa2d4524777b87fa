package io.ringbus.bench.network;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads memory figures of a process from Linux's {@code /proc/<pid>/status}. */
final class ProcStatus {
    private ProcStatus() {
    }

    /**
     * @param pid a process id
     * @return its peak resident set size (VmHWM) in KiB, or -1 when not readable (not Linux, or
     *         the process has exited)
     */
    static long peakRssKiB(long pid) {
        return field(pid, "VmHWM:");
    }

    /**
     * @param pid a process id
     * @return its resident set size now (VmRSS) in KiB, or -1 when not readable
     */
    static long rssKiB(long pid) {
        return field(pid, "VmRSS:");
    }

    private static long field(long pid, String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"),
                    StandardCharsets.US_ASCII)) {
                if (line.startsWith(name)) {
                    // "VmHWM:     123456 kB"
                    String[] parts = line.substring(name.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]);
                }
            }
            return -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
