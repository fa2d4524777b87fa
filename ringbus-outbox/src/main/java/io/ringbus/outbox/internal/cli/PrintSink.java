package io.ringbus.outbox.internal.cli;

import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;
import java.io.PrintWriter;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The CLI's {@code --sink log}: "delivers" a row by printing one line,
 * {@code delivered <event id> <subject> <key or ->}, and flushing it. For trying the relay out,
 * diagnosing routing, and the crash tests, which count the lines of a killed relay.
 *
 * <p>An optional delay before each line stands in for a slow destination (a testing and
 * diagnostic aid: it makes batches long enough to kill a relay in the middle of one). One delivery
 * at a time, on the relay's thread.
 */
public final class PrintSink implements OutboxSink {
    private final PrintWriter out;
    private final long delayMillis;

    /**
     * @param out         where the lines go; flushed after each
     * @param delayMillis how long each delivery waits before printing, 0 or more
     */
    public PrintSink(PrintWriter out, long delayMillis) {
        if (delayMillis < 0) {
            throw new IllegalArgumentException("sink delay must be 0 or more: delayMillis=" + delayMillis);
        }
        this.out = Objects.requireNonNull(out, "out");
        this.delayMillis = delayMillis;
    }

    @Override
    public String name() {
        return "log";
    }

    /** @return 1: lines appear in delivery order */
    @Override
    public int maxConcurrency() {
        return 1;
    }

    @Override
    public CompletionStage<?> deliver(OutboxEvent event) {
        if (delayMillis > 0) {
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return CompletableFuture.failedFuture(e);
            }
        }
        out.println("delivered " + event.eventId() + " " + event.subject() + " " + (event.key() == null ? "-" : event.key()));
        out.flush();
        return CompletableFuture.completedFuture(null);
    }
}
