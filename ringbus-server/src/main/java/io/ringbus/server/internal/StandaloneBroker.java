package io.ringbus.server.internal;

import io.ringbus.core.BlockedHandlerListener;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.core.WaitStrategy;

/**
 * The broker behind the standalone server, before its configuration file and options apply: the
 * defaults that {@code broker.*} keys change (the configuration reference shows these).
 */
public final class StandaloneBroker {
    /** Ring slots: network subscriptions do not use the ring, in-process subscribers do. */
    public static final int RING_SIZE = 65_536;
    /** Subjects nobody registered are for network clients. */
    public static final Scope DEFAULT_SCOPE = Scope.PUBLIC;
    /**
     * BLOCKING: the ring carries only in-process subscribers' messages (network subscriptions are
     * served on the publishers' event loops), so its event loop sleeps at no cost while idle;
     * SLEEPING woke it ~6,400 times a second, a quarter of a core on an idle server (issue 27).
     */
    public static final WaitStrategy WAIT_STRATEGY = WaitStrategy.BLOCKING;
    /**
     * Handler latency timed for 1 call in 64: a network delivery is a ~50 ns enqueue, which a
     * histogram record per call would more than double.
     */
    public static final int HANDLER_LATENCY_SAMPLING = 64;

    private StandaloneBroker() {
    }

    /**
     * @param blockedHandlers hears the watchdog's warnings (the dashboard shows them)
     * @return a builder with the standalone server's defaults
     */
    public static BrokerBuilder builder(BlockedHandlerListener blockedHandlers) {
        return Broker.builder().name("ringbus").ringSize(RING_SIZE).defaultScope(DEFAULT_SCOPE)
                .waitStrategy(WAIT_STRATEGY).blockedHandlerListener(blockedHandlers)
                .handlerLatencySampling(HANDLER_LATENCY_SAMPLING);
    }
}
