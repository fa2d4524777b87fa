package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIZ_Result;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The drainer hand-off of an ordered {@link BufferedSubscriber}: the event loop offers a message
 * while the only drainer finds the buffer empty and lets go. Either the drainer takes the message
 * (at its poll, or at its re-check after the decrement) or the event loop sees no drainer and
 * starts one; never is the message left in the buffer with no drainer to come (a lost wake-up).
 *
 * <p>Message 1 is delivered when the state is built, so one drainer is claimed and held by the
 * recording executor. Then the event loop delivers messages 2 and 3 while that drainer runs (two,
 * so that one of them more often lands in the drainer's let-go window). The arbiter runs
 * whatever drainers the event loop started, and reports the order the handler saw (123: messages
 * 1, 2, 3), how many drainers the event loop started, and whether the subscriber ended idle
 * (empty buffer, no drainer claimed). Observable on x86: the lost wake-up is an interleaving,
 * not a reordering (removing the re-check in {@code drain()} makes "12, 0, false" appear).
 */
@JCStressTest
@Description("BufferedSubscriber drainer hand-off: no message is left buffered with no drainer scheduled")
@Outcome(id = "123, 0, true", expect = ACCEPTABLE, desc = "the running drainer took messages 2 and 3 (poll or re-check)")
@Outcome(id = "123, 1, true", expect = ACCEPTABLE_INTERESTING,
        desc = "the drainer had let go: the event loop started a new one")
@Outcome(id = {"1, 0, false", "12, 0, false"}, expect = FORBIDDEN,
        desc = "lost wake-up: a message stranded, no drainer scheduled")
@Outcome(expect = FORBIDDEN, desc = "a message lost, handled twice or out of order, or a drainer count leaked")
@State
public class BufferedSubscriberHandOffTest {
    /** Drainers started by the event loop, run by the arbiter; the actors never run these. */
    private final ConcurrentLinkedQueue<Runnable> started = new ConcurrentLinkedQueue<>();
    /** The handled payloads as decimal digits in handling order. */
    private final AtomicInteger handled = new AtomicInteger();
    private final HandlerProbe loopProbe = new HandlerProbe(ExecutionMode.EVENT_LOOP, null);
    private final BufferedSubscriber subscriber = StressBroker.buffered(started::add, true,
            message -> handled.updateAndGet(order -> order * 10 + (Integer) message.payload()));
    private final Runnable firstDrainer;

    public BufferedSubscriberHandOffTest() {
        subscriber.deliver(StressBroker.slot("stress.a", 1), loopProbe);
        firstDrainer = started.poll();
    }

    @Actor
    public void eventLoop() {
        subscriber.deliver(StressBroker.slot("stress.a", 2), loopProbe);
        subscriber.deliver(StressBroker.slot("stress.a", 3), loopProbe);
    }

    @Actor
    public void drainer() {
        firstDrainer.run();
    }

    @Arbiter
    public void arbiter(IIZ_Result r) {
        r.r2 = started.size();
        for (Runnable drainer; (drainer = started.poll()) != null; ) {
            drainer.run();
        }
        r.r1 = handled.get();
        r.r3 = subscriber.isIdle();
    }
}
