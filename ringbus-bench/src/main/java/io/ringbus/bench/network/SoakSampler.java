package io.ringbus.bench.network;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples a running server once a second on its own platform thread: {@code /healthz} (answered
 * 200 within a second or not), heap used (the sum of {@code jvm_memory_used_bytes{area="heap"}}
 * on {@code /metrics}, ringbus-server only; -1 where the server has none) and RSS from /proc.
 */
final class SoakSampler implements AutoCloseable {
    /**
     * @param atMillis   since sampling began
     * @param healthy    whether {@code /healthz} answered 200 within a second
     * @param heapBytes  heap used, -1 when unknown
     * @param rssKiB     resident set size, -1 when unknown
     */
    record Sample(long atMillis, boolean healthy, long heapBytes, long rssKiB) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final URI healthz;
    private final URI metrics;
    private final long pid;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * Starts sampling.
     *
     * @param monitorPort the server's monitoring port on 127.0.0.1
     * @param pid         the server's process id
     * @param heap        whether to read the heap from {@code /metrics}
     */
    SoakSampler(int monitorPort, long pid, boolean heap) {
        this.healthz = URI.create("http://127.0.0.1:" + monitorPort + "/healthz");
        this.metrics = heap ? URI.create("http://127.0.0.1:" + monitorPort + "/metrics") : null;
        this.pid = pid;
        this.thread = Thread.ofPlatform().name("soak-sampler").daemon().start(this::loop);
    }

    private void loop() {
        long start = System.nanoTime();
        for (long tick = 1; running; tick++) {
            long due = start + tick * 1_000_000_000L;
            Sample s = new Sample((System.nanoTime() - start) / 1_000_000, healthy(), heapBytes(), ProcStatus.rssKiB(pid));
            synchronized (samples) {
                samples.add(s);
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private boolean healthy() {
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(healthz).timeout(Duration.ofSeconds(1)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private long heapBytes() {
        if (metrics == null) {
            return -1;
        }
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            double sum = 0;
            boolean found = false;
            for (String line : r.body().split("\n")) {
                // jvm_memory_used_bytes{area="heap",id="G1 Eden Space",...} 1.2345E7
                if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    found = true;
                }
            }
            return found ? (long) sum : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** @return the samples so far, in time order */
    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /** Stops sampling. */
    @Override
    public void close() {
        stop();
    }

    /** Stops sampling and waits for the thread; the samples stay readable. */
    void stop() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
