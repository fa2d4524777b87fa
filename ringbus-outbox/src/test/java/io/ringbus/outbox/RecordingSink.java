package io.ringbus.outbox;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** A sink that records what it was given and answers as a test tells it to. */
class RecordingSink implements OutboxSink {
    final List<OutboxEvent> received = new CopyOnWriteArrayList<>();
    private final int maxConcurrency;
    private volatile Function<OutboxEvent, CompletionStage<?>> answer = e -> CompletableFuture.completedFuture(null);

    RecordingSink(int maxConcurrency) {
        this.maxConcurrency = maxConcurrency;
    }

    RecordingSink() {
        this(16);
    }

    /** Sets how each delivery is answered (default: delivered at once). */
    RecordingSink answer(Function<OutboxEvent, CompletionStage<?>> answer) {
        this.answer = answer;
        return this;
    }

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public int maxConcurrency() {
        return maxConcurrency;
    }

    @Override
    public CompletionStage<?> deliver(OutboxEvent event) {
        received.add(event);
        return answer.apply(event);
    }
}
