package io.ringbus.bench.storage;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.PublishAck;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Durable publish on ringbus's local store, in process: each publisher thread calls
 * {@link StoredStream#append} on its own subject of one stream in a fresh directory.
 *
 * <p>Async: at most {@code window} appends outstanding per publisher, the oldest waited for before
 * the next (nats.go's {@code PublishAsyncMaxPending}); each latency is taken when the future
 * completes, on whichever thread completes it. Sync: {@code append(...).join()} per message.
 *
 * <p>Measured as jsload measures the peer: publishers run {@code warmup} unmeasured, then the
 * messages whose append started in the next {@code duration} are counted; the time runs until the
 * last of them is acknowledged.
 */
final class RingbusPublish {
    /** Histograms hold nanoseconds up to this. */
    static final long MAX_LATENCY_NANOS = TimeUnit.MINUTES.toNanos(2);

    private static final int WARMING = 0;
    private static final int MEASURING = 1;
    private static final int STOPPING = 2;

    private final Path parent;
    private final Duration interval;
    private final int window;
    private final Duration warmup;
    private final Duration duration;

    /**
     * @param parent   where each run's directory is made
     * @param interval the INTERVAL policy's force interval
     * @param window   async: outstanding appends per publisher, &gt;= 1
     * @param warmup   unmeasured publishing first
     * @param duration measured publishing
     */
    RingbusPublish(Path parent, Duration interval, int window, Duration warmup, Duration duration) {
        this.parent = parent;
        this.interval = interval;
        this.window = window;
        this.warmup = warmup;
        this.duration = duration;
    }

    /**
     * Runs one case on a fresh store, deleted afterwards.
     *
     * @param policy the store's policy
     * @param c      the case
     * @return the run, its ratio NaN
     * @throws IOException when the directory cannot be made
     */
    StorageResults.PublishRow run(FsyncPolicy policy, PublishCase c) throws IOException, InterruptedException {
        Histogram latencies = new ConcurrentHistogram(MAX_LATENCY_NANOS, 3);
        AtomicInteger phase = new AtomicInteger(WARMING);
        AtomicLong measured = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start;
        long end;
        try (ScratchDirectory dir = ScratchDirectory.create(parent, "ringbus-" + policy + "-");
             Storage storage = Storage.local(dir.path(), policy, interval)) {
            StoredStream stream = storage.stream(StreamConfig.of("bench.>"));
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < c.publishers(); p++) {
                String subject = "bench.p" + p;
                Runnable body = c.async()
                        ? () -> publishAsync(stream, subject, c.payloadBytes(), phase, measured, latencies, failure)
                        : () -> publishSync(stream, subject, c.payloadBytes(), phase, measured, latencies, failure);
                threads.add(Thread.ofPlatform().name("bench-publisher-" + p).start(body));
            }
            Thread.sleep(warmup.toMillis());
            start = System.nanoTime();
            phase.set(MEASURING);
            Thread.sleep(duration.toMillis());
            phase.set(STOPPING);
            for (Thread t : threads) {
                t.join();
            }
            end = System.nanoTime();
        }
        double seconds = (end - start) / 1e9;
        Throwable error = failure.get();
        return new StorageResults.PublishRow("ringbus", policy.name(), c.mode(), c.payloadBytes(), c.publishers(),
                measured.get(), seconds, measured.get() / seconds, micros(latencies, 50), micros(latencies, 99),
                latencies.getTotalCount() == 0 ? Double.NaN : latencies.getMaxValue() / 1e3, Double.NaN,
                error == null ? null : "append failed: " + error);
    }

    private void publishAsync(StoredStream stream, String subject, int size, AtomicInteger phase, AtomicLong measured,
                              Histogram latencies, AtomicReference<Throwable> failure) {
        byte[] payload = new byte[size];
        ArrayDeque<CompletableFuture<PublishAck>> outstanding = new ArrayDeque<>(window);
        long count = 0;
        while (true) {
            int now = phase.get();
            if (now == STOPPING) {
                break;
            }
            if (outstanding.size() == window) {
                await(outstanding.pollFirst(), failure);
            }
            long started = System.nanoTime();
            CompletableFuture<PublishAck> future = stream.append(subject, null, payload, null);
            if (now == MEASURING) {
                count++;
                future.whenComplete((ack, error) -> {
                    if (error == null) {
                        latencies.recordValue(Math.min(System.nanoTime() - started, MAX_LATENCY_NANOS));
                    }
                });
            }
            outstanding.addLast(future);
        }
        for (CompletableFuture<PublishAck> f : outstanding) {
            await(f, failure);
        }
        measured.addAndGet(count);
    }

    private static void publishSync(StoredStream stream, String subject, int size, AtomicInteger phase,
                                    AtomicLong measured, Histogram latencies, AtomicReference<Throwable> failure) {
        byte[] payload = new byte[size];
        long count = 0;
        while (true) {
            int now = phase.get();
            if (now == STOPPING) {
                break;
            }
            long started = System.nanoTime();
            boolean stored = await(stream.append(subject, null, payload, null), failure);
            if (now == MEASURING && stored) {
                latencies.recordValue(Math.min(System.nanoTime() - started, MAX_LATENCY_NANOS));
                count++;
            }
        }
        measured.addAndGet(count);
    }

    /** @return whether the append was acknowledged; a failure is kept (the first one) */
    private static boolean await(CompletableFuture<PublishAck> future, AtomicReference<Throwable> failure) {
        try {
            future.join();
            return true;
        } catch (CompletionException e) {
            failure.compareAndSet(null, e.getCause());
            return false;
        }
    }

    /**
     * @param histogram nanoseconds
     * @param percentile e.g. 99
     * @return that percentile in microseconds, NaN when empty
     */
    static double micros(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1e3;
    }
}
