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

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A {@link BufferedSubscriber} retired while its event loop delivers: the retiring thread empties
 * the buffer, and the event loop re-checks {@code isActive()} after its offer, so no message stays
 * buffered in a retired subscriber (it would be neither delivered nor counted, and held forever).
 *
 * <p>A Dekker pattern: the event loop writes the queue then reads the volatile {@code active}; the
 * retiring thread writes {@code active} then reads the queue. The arbiter reports the messages
 * still buffered, whether the event loop started a drainer, and whether the subscriber is still
 * active. Observable on x86: both the missing re-check (an interleaving) and a non-volatile
 * {@code active} (store-load reordering, the one x86 allows) leave "1, ..." outcomes.
 */
@JCStressTest
@Description("BufferedSubscriber retire vs deliver: a retired subscriber keeps nothing buffered")
@Outcome(id = "0, 0, false", expect = ACCEPTABLE, desc = "retired first, or the event loop discarded its own offer")
@Outcome(id = "0, 1, false", expect = ACCEPTABLE_INTERESTING,
        desc = "delivered and a drainer started before the retire; the retire discarded the message")
@Outcome(expect = FORBIDDEN, desc = "a message left buffered in a retired subscriber, or still active")
@State
public class BufferedSubscriberRetireTest {
    private final ConcurrentLinkedQueue<Runnable> started = new ConcurrentLinkedQueue<>();
    private final HandlerProbe loopProbe = new HandlerProbe(ExecutionMode.EVENT_LOOP, null);
    private final BufferedSubscriber subscriber = StressBroker.buffered(started::add, true, message -> { });

    @Actor
    public void eventLoop() {
        subscriber.deliver(StressBroker.slot("stress.a", 1), loopProbe);
    }

    @Actor
    public void unsubscriber() {
        subscriber.unsubscribe();
    }

    @Arbiter
    public void arbiter(IIZ_Result r) {
        r.r1 = (int) subscriber.pending();
        r.r2 = started.size();
        r.r3 = subscriber.isActive();
    }
}
