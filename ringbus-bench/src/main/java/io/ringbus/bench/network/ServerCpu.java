package io.ringbus.bench.network;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A server process's own CPU time (user + system, {@code /proc/<pid>/stat}) read before and after
 * a measured step, as time per message: every thread of the process counts (for the JVM its
 * compiler and collector threads too), the load generator's never. On 2 shared cores the
 * throughput of client and server blur into each other; this figure does not. The network, TLS
 * and jetstream scenarios all read it here.
 *
 * @param ticksPerSecond the kernel's clock ticks per second ({@code getconf CLK_TCK})
 */
public record ServerCpu(long ticksPerSecond) {
    /** What every Linux build this runs on uses; taken when {@code getconf} cannot say. */
    static final long USUAL_TICKS_PER_SECOND = 100;

    /**
     * @throws IllegalArgumentException when the tick rate is not positive
     */
    public ServerCpu {
        if (ticksPerSecond <= 0) {
            throw new IllegalArgumentException("clock ticks per second must be positive: ticksPerSecond="
                    + ticksPerSecond);
        }
    }

    /** @return the machine's tick rate from {@code getconf CLK_TCK}, else {@value #USUAL_TICKS_PER_SECOND} */
    public static ServerCpu ofThisMachine() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return new ServerCpu(Long.parseLong(out));
            }
        } catch (IOException | NumberFormatException e) {
            // no getconf: the usual rate
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new ServerCpu(USUAL_TICKS_PER_SECOND);
    }

    /**
     * @param pid the server's process id
     * @return its user + system time in ticks, or -1 when {@code /proc} cannot say
     */
    public long ticks(long pid) {
        return ProcStatus.cpuTicks(pid);
    }

    /**
     * @param before {@link #ticks} before the step, -1 when unknown
     * @param after  {@link #ticks} after it, -1 when unknown
     * @return the CPU time between them in nanoseconds, -1 when a reading is missing
     */
    public long nanos(long before, long after) {
        if (before < 0 || after < before) {
            return -1;
        }
        return (after - before) * 1_000_000_000L / ticksPerSecond;
    }

    /**
     * @param before   {@link #ticks} before the step, -1 when unknown
     * @param after    {@link #ticks} after it, -1 when unknown
     * @param messages what the server served in the step
     * @return CPU microseconds per message, NaN when a reading or the count is missing
     */
    public double microsPerMessage(long before, long after, long messages) {
        if (before < 0 || after < before || messages <= 0) {
            return Double.NaN;
        }
        return (after - before) * 1e6 / ticksPerSecond / messages;
    }

    /**
     * @param nanos    CPU time summed over some runs, -1 when unknown
     * @param messages what the server served in them
     * @return CPU nanoseconds per message, NaN when either is unknown or the count is not positive
     */
    public static double nanosPer(long nanos, long messages) {
        return nanos < 0 || messages <= 0 ? Double.NaN : (double) nanos / messages;
    }
}
