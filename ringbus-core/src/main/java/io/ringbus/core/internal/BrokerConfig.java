package io.ringbus.core.internal;

import io.ringbus.core.BlockedHandlerListener;
import io.ringbus.core.ErrorHandler;
import io.ringbus.core.Federation;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.WaitStrategy;

import java.time.Duration;

/**
 * The validated settings of one broker, as collected by {@link io.ringbus.core.BrokerBuilder}.
 * {@code errorHandler} and {@code blockedHandlerListener} may be {@code null}: logging defaults.
 * {@code meterRegistry} is a Micrometer {@code MeterRegistry} or {@code null}; typed
 * {@code Object} so that this record never makes the JVM load Micrometer. {@code storage} is
 * {@code null} for the default local store, opened on first use; {@code federation} is
 * {@code null} without a link to other nodes.
 */
public record BrokerConfig(String name, int ringSize, WaitStrategy waitStrategy, int eventLoops,
                           int workerPoolSize, Scope defaultScope, ErrorHandler errorHandler,
                           BlockedHandlerListener blockedHandlerListener, Duration maxEventLoopExecuteTime,
                           Duration maxWorkerExecuteTime, Duration maxVirtualExecuteTime,
                           Duration watchdogInterval, Duration shutdownTimeout, int routeCacheSize,
                           Object meterRegistry, int meterPatternLimit, int handlerLatencySampling,
                           long maxInFlightBytes, Duration replyScopeTtl, int maxReplyScopes,
                           Storage storage, Federation federation) {
}
