package io.ringbus.bench.network;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads memory figures of a process from Linux's {@code /proc/<pid>/status} and its CPU time
 * from {@code /proc/<pid>/stat}.
 */
public final class ProcStatus {
    private ProcStatus() {
    }

    /**
     * @param pid a process id
     * @return its peak resident set size (VmHWM) in KiB, or -1 when not readable (not Linux, or
     *         the process has exited)
     */
    public static long peakRssKiB(long pid) {
        return field(pid, "VmHWM:");
    }

    /**
     * @param pid a process id
     * @return its resident set size now (VmRSS) in KiB, or -1 when not readable
     */
    static long rssKiB(long pid) {
        return field(pid, "VmRSS:");
    }

    /**
     * The process's own CPU time: user plus system ({@code utime + stime} of {@code /proc/<pid>/stat},
     * in clock ticks of 10 ms, the {@code CLK_TCK} of every Linux build this runs on).
     *
     * @param pid a process id
     * @return user + system CPU time in milliseconds, or -1 when not readable
     */
    public static long cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            // "pid (comm) state ppid ...": comm may hold spaces, so count fields after its ')'
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
