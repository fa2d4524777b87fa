package io.ringbus.core.internal;

import io.ringbus.core.Headers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link MessageSlot#release} with two event loops reading one slot: each reads the slot, then
 * releases it; exactly one of them (the last) clears it and gives its bytes back to the budget,
 * and neither sees the slot cleared under its own read (the decrement is a full fence, so the
 * clearing loop comes after the other loop's reads).
 *
 * <p>Reports, per loop, whether its read saw the message (1) or a cleared slot (0), and the bytes
 * its release returned. Observable on x86: a non-atomic decrement (get then set) loses one and
 * makes both or neither loop the last ("..., 100, 100" or "..., 0, 0"); clearing without the
 * count makes a reader see 0.
 */
@JCStressTest
@Description("MessageSlot release: the last of two loops clears the slot, once, after both read it")
@Outcome(id = {"1, 1, 100, 0", "1, 1, 0, 100"}, expect = ACCEPTABLE, desc = "one loop cleared the slot, after both read it")
@Outcome(expect = FORBIDDEN, desc = "cleared twice or never (budget leaked or double-counted), or cleared under a read")
@State
public class MessageSlotReleaseTest {
    private final MessageSlot slot = new MessageSlot();

    public MessageSlotReleaseTest() {
        slot.set(null, "stress.a", null, Headers.EMPTY, "payload", 0, 100, 2);
    }

    @Actor
    public void loop1(IIII_Result r) {
        r.r1 = slot.payload() != null ? 1 : 0;
        r.r3 = slot.release(2);
    }

    @Actor
    public void loop2(IIII_Result r) {
        r.r2 = slot.subject() != null ? 1 : 0;
        r.r4 = slot.release(2);
    }
}
