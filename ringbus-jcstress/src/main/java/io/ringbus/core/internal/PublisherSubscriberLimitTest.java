package io.ringbus.core.internal;

import io.ringbus.core.Message;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.util.concurrent.atomic.AtomicInteger;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link PublisherSubscriber} under {@code unsubscribeAfter(1)}, with two publishers delivering at
 * once: the claim on the delivery count (a CAS) lets exactly one through, and the subscription
 * retires after it. Reports each publisher's {@code deliverDirect} result (1: delivered), the handler calls and
 * whether the subscription is still active (1). Observable on x86: a check-then-increment instead of
 * the CAS lets both through.
 */
@JCStressTest
@Description("PublisherSubscriber delivery limit: two racing publishers, limit 1, one handler call")
@Outcome(id = {"1, 0, 1, 0", "0, 1, 1, 0"}, expect = ACCEPTABLE,
        desc = "one publisher delivered, the other was refused; retired")
@Outcome(expect = FORBIDDEN, desc = "the limit was exceeded, nobody delivered, or it stayed subscribed")
@State
public class PublisherSubscriberLimitTest {
    private static final Message MESSAGE = Message.of("stress.a", null, null, "payload");

    private final AtomicInteger calls = new AtomicInteger();
    private final PublisherSubscriber subscriber = StressBroker.publisher(message -> calls.incrementAndGet());

    public PublisherSubscriberLimitTest() {
        subscriber.unsubscribeAfter(1);
    }

    @Actor
    public void publisher1(IIII_Result r) {
        r.r1 = subscriber.deliverDirect(MESSAGE) ? 1 : 0;
    }

    @Actor
    public void publisher2(IIII_Result r) {
        r.r2 = subscriber.deliverDirect(MESSAGE) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        r.r3 = calls.get();
        r.r4 = subscriber.isActive() ? 1 : 0;
    }
}
