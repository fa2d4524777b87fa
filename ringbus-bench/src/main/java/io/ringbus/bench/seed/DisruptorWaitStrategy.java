package io.ringbus.bench.seed;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

/** The Disruptor wait strategy that matches a ringbus one, so ring-based contenders wait alike. */
final class DisruptorWaitStrategy {
    private DisruptorWaitStrategy() {
    }

    /**
     * @param strategy a ringbus wait strategy
     * @return a new Disruptor wait strategy of the same kind
     */
    static WaitStrategy matching(io.ringbus.core.WaitStrategy strategy) {
        return switch (strategy) {
            case BLOCKING -> new BlockingWaitStrategy();
            case SLEEPING -> new SleepingWaitStrategy();
            case YIELDING -> new YieldingWaitStrategy();
            case BUSY_SPIN -> new BusySpinWaitStrategy();
        };
    }
}
