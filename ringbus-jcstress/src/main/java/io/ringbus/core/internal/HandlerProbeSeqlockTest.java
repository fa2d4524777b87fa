package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJI_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The seqlock of {@link HandlerProbe}: the owner thread writes the subscriber and subject of a
 * call, then bumps the phase to odd (release); the watchdog reads the phase (acquire), the pair,
 * and the phase again, and uses the pair only when the phase was odd and unchanged. Then the pair
 * it uses is that call's, never the other call's nor a torn mix, and the phase never goes back.
 *
 * <p>The owner runs two calls, A on "a" (phases 1, 2) and B on "b" (3); the reader reports both
 * phases and the pair it read (11: A and "a", 22: B and "b", 0 for null, 12 / 21 mixed). A pair
 * read while the phase was even or moving is discarded by the watchdog: any value is fine there.
 * x86-weak: TSO keeps stores in order and loads in order, so a broken ordering here (plain
 * phase stores, or the pair read past the second phase read) shows only on weaker hardware
 * (ARM, POWER) or through a compiler reordering; on x86 this checks the protocol's logic.
 */
@JCStressTest
@Description("HandlerProbe seqlock: a pair read under a stable odd phase belongs to that call")
@Outcome(id = "1, 1, 11", expect = ACCEPTABLE, desc = "call A seen whole while it ran")
@Outcome(id = "3, 3, 22", expect = ACCEPTABLE, desc = "call B seen whole while it ran")
@Outcome(id = {"0, [0-3], .*", "1, [23], .*", "2, [23], .*"}, expect = ACCEPTABLE,
        desc = "phase even or moved: the watchdog discards the pair")
@Outcome(expect = FORBIDDEN, desc = "a torn or wrong pair under a stable odd phase, or the phase went backwards")
@State
public class HandlerProbeSeqlockTest {
    private static final Subscriber A = StressBroker.eventLoop(message -> { });
    private static final Subscriber B = StressBroker.eventLoop(message -> { });

    private final HandlerProbe probe = new HandlerProbe(ExecutionMode.EVENT_LOOP, null);

    @Actor
    public void owner() {
        probe.enter(A, "a");
        probe.exit();
        probe.enter(B, "b");
    }

    @Actor
    public void watchdog(JJI_Result r) {
        long before = probe.phaseAcquire();
        Subscriber subscriber = probe.subscriber();
        String subject = probe.subject();
        long after = probe.phaseRecheck();
        r.r1 = before;
        r.r2 = after;
        r.r3 = code(subscriber == A, subscriber == B) * 10 + code("a".equals(subject), "b".equals(subject));
    }

    private static int code(boolean first, boolean second) {
        return first ? 1 : second ? 2 : 0;
    }
}
