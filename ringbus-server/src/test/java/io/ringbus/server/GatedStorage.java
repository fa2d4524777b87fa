package io.ringbus.server;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.StreamInfo;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real local store, with its acknowledgements held back until the test opens the gate (or
 * failed, as a full disk fails them): so a test can tell "answered after the store acknowledged"
 * from "answered after the append", which the local store does within microseconds of each other.
 * Everything else goes to the store as is.
 */
final class GatedStorage implements Storage {
    private final Storage store;
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private volatile StorageException failure;
    /** Acknowledgements handed to the broker (completed, after the gate). */
    final AtomicInteger acknowledged = new AtomicInteger();

    GatedStorage(Storage store) {
        this.store = store;
    }

    /** Lets every acknowledgement held so far, and all later ones, through (once: the gate stays open). */
    void open() {
        gate.complete(null);
    }

    /** Fails every later append's acknowledgement with {@code error} (the record itself is stored). */
    void failWith(StorageException error) {
        this.failure = error;
    }

    @Override
    public StoredStream stream(StreamConfig config) {
        return new GatedStream(store.stream(config));
    }

    @Override
    public long maxPendingBytes() {
        return store.maxPendingBytes();
    }

    @Override
    public String describe() {
        return "gated " + store.describe();
    }

    @Override
    public void close() {
        store.close();
    }

    private CompletableFuture<PublishAck> gated(CompletableFuture<PublishAck> stored) {
        if (stored == null) {
            return null;
        }
        StorageException failed = failure;
        // Counted before the future completes: whoever sees it complete sees it counted.
        return stored.thenCombine(gate, (ack, open) -> {
            acknowledged.incrementAndGet();
            if (failed != null) {
                throw failed;
            }
            return ack;
        });
    }

    private final class GatedStream implements StoredStream {
        private final StoredStream stream;

        GatedStream(StoredStream stream) {
            this.stream = stream;
        }

        @Override
        public StreamConfig config() {
            return stream.config();
        }

        @Override
        public CompletableFuture<PublishAck> append(String subject, Headers headers, byte[] payload, String msgId) {
            return gated(stream.append(subject, headers, payload, msgId));
        }

        @Override
        public CompletableFuture<PublishAck> tryAppend(String subject, Headers headers, byte[] payload,
                                                       String msgId) {
            return gated(stream.tryAppend(subject, headers, payload, msgId));
        }

        @Override
        public StreamConsumer consumer(ConsumerConfig config) {
            return stream.consumer(config);
        }

        @Override
        public StreamInfo info() {
            return stream.info();
        }
    }
}
