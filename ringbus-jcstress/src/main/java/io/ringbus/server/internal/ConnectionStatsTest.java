package io.ringbus.server.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link ConnectionStats} as the monitor reads it while the connection's event loop counts: each
 * counter is read whole (the byte count, a value over 32 bits, is never torn) and a counter read
 * twice never goes backwards; counters read together may be a message apart.
 *
 * <p>The event loop receives two messages of {@code 2^32 + 1} bytes; the monitor reads
 * {@code inMsgs}, {@code inBytes}, then {@code inMsgs} again. Reports the messages seen first, the
 * byte count in messages (-1 when it is no multiple of {@code 2^32 + 1}: torn), and the messages
 * seen last. x86-weak: a 64-bit JVM never tears a long and x86 keeps same-address reads coherent,
 * so this fails there only if the counters lost their atomic (opaque) access to a compiler that
 * caches or reorders plain reads; it pins the contract for 32-bit and weakly ordered hardware.
 */
@JCStressTest
@Description("ConnectionStats: counters read whole, never backwards, by the monitor")
@Outcome(id = {"0, 0, 0", "1, 1, 1", "2, 2, 2"}, expect = ACCEPTABLE, desc = "all read between two messages")
@Outcome(id = {"0, [0-2], [0-2]", "1, [0-2], [12]", "2, [0-2], 2"}, expect = ACCEPTABLE_INTERESTING,
        desc = "messages counted while the monitor read: counters a message apart, none going backwards")
@Outcome(expect = FORBIDDEN, desc = "a torn byte count, or inMsgs went backwards")
@State
public class ConnectionStatsTest {
    private static final long BYTES = (1L << 32) + 1;

    private final ConnectionStats stats = new ConnectionStats();

    @Actor
    public void eventLoop() {
        stats.received(BYTES);
        stats.received(BYTES);
    }

    @Actor
    public void monitor(JJJ_Result r) {
        r.r1 = stats.inMsgs();
        long bytes = stats.inBytes();
        r.r3 = stats.inMsgs();
        r.r2 = bytes % BYTES == 0 ? bytes / BYTES : -1;
    }
}
