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
     * @param pid a process id
     * @return its user + system CPU time in clock ticks ({@link #cpuTicksOf}; {@link ServerCpu} turns
     *         them into time), or -1 when not readable
     */
    public static long cpuTicks(long pid) {
        try {
            return cpuTicksOf(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII));
        } catch (IOException | IllegalArgumentException e) {
            return -1;
        }
    }

    /**
     * Reads user + system CPU time from the text of {@code /proc/<pid>/stat}: {@code utime} and
     * {@code stime}, the 14th and 15th fields (proc(5)), counted after the command name in
     * parentheses, which may itself hold spaces and parentheses (its last {@code ')'} ends it).
     *
     * @param stat the file's text
     * @return {@code utime + stime} in clock ticks
     * @throws IllegalArgumentException when the text is not such a line, quoting it
     */
    public static long cpuTicksOf(String stat) {
        int close = stat.lastIndexOf(')');
        String[] fields = close < 0 ? new String[0] : stat.substring(close + 1).trim().split("\\s+");
        // after "pid (comm)": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
        if (fields.length < 13) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: stat='" + stat.strip() + "'");
        }
        try {
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("utime or stime is not a number: stat='" + stat.strip() + "'", e);
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
