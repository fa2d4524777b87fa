package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The {@code delivered} count of an {@link EventLoopSubscriber}: written by its event loop alone
 * ({@code setOpaque}), read by stats from any thread ({@code getOpaque}). A reader sees a count
 * of 0 to 2 after two deliveries, and two reads in a row never go backwards (opaque access is
 * coherent per variable). x86-weak: x86 and ARMv8 keep same-address reads coherent in hardware,
 * so only a compiler that reorders or caches plain reads breaks this; the test pins the contract.
 */
@JCStressTest
@Description("EventLoopSubscriber.delivered(): the monitor's reads never go backwards")
@Outcome(id = {"0, 0", "1, 1", "2, 2"}, expect = ACCEPTABLE, desc = "both reads saw the same count")
@Outcome(id = {"0, 1", "0, 2", "1, 2"}, expect = ACCEPTABLE_INTERESTING, desc = "a delivery between the two reads")
@Outcome(expect = FORBIDDEN, desc = "the count went backwards or out of range")
@State
public class EventLoopSubscriberDeliveredTest {
    private final HandlerProbe loopProbe = new HandlerProbe(ExecutionMode.EVENT_LOOP, null);
    private final EventLoopSubscriber subscriber = StressBroker.eventLoop(message -> { });
    private final MessageSlot slot = StressBroker.slot("stress.a", "payload");

    @Actor
    public void eventLoop() {
        subscriber.deliver(slot, loopProbe);
        subscriber.deliver(slot, loopProbe);
    }

    @Actor
    public void monitor(JJ_Result r) {
        r.r1 = subscriber.delivered();
        r.r2 = subscriber.delivered();
    }
}
