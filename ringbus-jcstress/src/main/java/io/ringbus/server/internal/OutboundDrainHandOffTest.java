package io.ringbus.server.internal;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbus.core.Message;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The {@code scheduled} hand-off of {@link Outbound}: a publishing thread appends a delivery and
 * schedules a drain on the connection's event loop only when none is scheduled; the drain clears
 * the flag before it counts (and, when the socket can take them, takes) the pending deliveries.
 * So a delivery appended while a drain runs is
 * either taken by that drain or schedules the next one, never left pending with no drain to come.
 *
 * <p>The state has delivery 1 pending and a drain scheduled ({@code scheduled} set as a queued
 * drain leaves it; the {@code drain} actor is that drain, entered through {@code onWritable}, the
 * same method). The publisher appends delivery 2 meanwhile. The arbiter reports the deliveries
 * the drain took, then runs whatever drains the publisher scheduled and reports the total. The
 * channel is kept unwritable so that drains count deliveries without writing them: the Embedded
 * channel's flush would run queued tasks on the drain's thread. Observable on x86: clearing
 * {@code scheduled} after the take instead of before is an interleaving bug ("1, 1" appears).
 */
@JCStressTest
@Description("Outbound drain hand-off: no delivery is left pending with no drain scheduled")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "the running drain took both deliveries")
@Outcome(id = "1, 2", expect = ACCEPTABLE_INTERESTING, desc = "delivery 2 came after the take and scheduled a drain")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "lost wake-up: delivery 2 pending, no drain scheduled")
@Outcome(expect = FORBIDDEN, desc = "a delivery taken twice or lost")
@State
public class OutboundDrainHandOffTest {
    private static final Message MESSAGE = Message.of("stress.a", null, null, "payload");
    private static final byte[] SID = "1".getBytes(StandardCharsets.US_ASCII);
    private static final VarHandle SCHEDULED;

    static {
        try {
            SCHEDULED = MethodHandles.privateLookupIn(Outbound.class, MethodHandles.lookup())
                    .findVarHandle(Outbound.class, "scheduled", AtomicBoolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ConnectionStats stats = new ConnectionStats();
    private final Outbound outbound;

    public OutboundDrainHandOffTest() {
        channel.config().setAllocator(UnpooledByteBufAllocator.DEFAULT);
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        channel.runPendingTasks(); // the writability event
        outbound = new Outbound(channel, new ServerCounters(), stats, 1 << 20, TimeUnit.SECONDS.toNanos(10),
                new io.ringbus.core.memory.ByteBudget(Long.MAX_VALUE), () -> { });
        ((AtomicBoolean) SCHEDULED.get(outbound)).set(true);
        outbound.enqueue(MESSAGE, SID);
    }

    @Actor
    public void publisher() {
        outbound.enqueue(MESSAGE, SID);
    }

    @Actor
    public void drain() {
        outbound.onWritable();
    }

    @Arbiter
    public void arbiter(JJ_Result r) {
        r.r1 = stats.outMsgs();
        channel.runPendingTasks();
        r.r2 = stats.outMsgs();
        outbound.close();
        channel.finishAndReleaseAll();
    }
}
