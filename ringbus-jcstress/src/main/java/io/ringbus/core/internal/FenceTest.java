package io.ringbus.core.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

import java.util.concurrent.atomic.AtomicInteger;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link Fence#pass} by two event loops at once: the last loop to pass runs the action, exactly
 * once. Observable on x86: a non-atomic count (get then set) runs it twice or never.
 */
@JCStressTest
@Description("Fence: the action runs exactly once, after both loops passed")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "the last loop ran the action")
@Outcome(expect = FORBIDDEN, desc = "the action ran twice or never")
@State
public class FenceTest {
    private final AtomicInteger runs = new AtomicInteger();
    private final Fence fence = new Fence(runs::incrementAndGet, 2);

    @Actor
    public void loop1() {
        fence.pass(StressBroker.BROKER);
    }

    @Actor
    public void loop2() {
        fence.pass(StressBroker.BROKER);
    }

    @Arbiter
    public void arbiter(I_Result r) {
        r.r1 = runs.get();
    }
}
