package io.ringbus.jetstream;

import io.nats.client.JetStream;
import io.nats.client.JetStreamOptions;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Publishes messages with ids ({@code Nats-Msg-Id}: {@code <name>-<n>}, also the payload) to
 * {@code load.<name>} with jnats' {@code publishAsync}, at most {@link #WINDOW} awaiting their
 * PubAck, at most {@code perLife} new ones per server life, one every {@code interval}. A publish
 * that gets no PubAck (the server died, the connection closed, 3 s passed) is published again
 * with the same id until one comes, also in the next life; the last life publishes nothing new
 * and ends once every id has its PubAck. Each life after the first begins by publishing again the
 * {@link #REPLAYS} ids acknowledged last: the server must answer each as a duplicate of the
 * sequence it acknowledged (its duplicate window survived the kill); any other answer is a
 * conflict.
 *
 * <p>Threading: {@link #run} on one thread; PubAcks are settled on jnats' threads; the results
 * are read once the thread ended.
 */
final class AckedPublisher implements Runnable {
    static final int WINDOW = 64;
    /** Acknowledged ids each publisher publishes again at the start of each life after the first. */
    static final int REPLAYS = 8;
    private static final Duration PUB_ACK_WAIT = Duration.ofSeconds(3);

    private final String name;
    private final AtomicReference<ServerLife> lives;
    private final int perLife;
    private final long intervalNanos;
    private final Semaphore window = new Semaphore(WINDOW);
    private final Queue<String> unacknowledged = new ConcurrentLinkedQueue<>();
    /** Each id's stream sequence, from the first PubAck that came for it. */
    private final Map<String, Long> acked = new ConcurrentHashMap<>();
    private final List<String> conflicts = new ArrayList<>();
    private final AtomicInteger duplicates = new AtomicInteger();
    private final AtomicInteger republished = new AtomicInteger();
    private final AtomicInteger replaysDeduplicated = new AtomicInteger();
    private volatile boolean stopped;
    private volatile int generated;

    AckedPublisher(String name, AtomicReference<ServerLife> lives, int perLife, Duration interval) {
        this.name = name;
        this.lives = lives;
        this.perLife = perLife;
        this.intervalNanos = interval.toNanos();
    }

    @Override
    public void run() {
        ServerLife seen = null;
        while (!stopped) {
            ServerLife life = lives.get();
            if (life == seen) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                continue;
            }
            seen = life;
            publishIn(life);
        }
    }

    /** Publishes while {@code life} is the current one (in the last life: until every id has its PubAck). */
    private void publishIn(ServerLife life) {
        JetStream js;
        try {
            js = life.publishers().jetStream(JetStreamOptions.builder().requestTimeout(PUB_ACK_WAIT).build());
        } catch (Exception closed) {
            return;
        }
        if (life.number() > 0) {
            for (String id : lastAcknowledged(REPLAYS)) {
                if (acquire() && !publish(js, id, true)) {
                    return;
                }
            }
        }
        int fresh = 0;
        long next = System.nanoTime();
        while (!stopped && lives.get() == life && !(life.last() && done())) {
            if (!acquire()) {
                continue;
            }
            String id = unacknowledged.poll();
            if (id == null) {
                long now = System.nanoTime();
                if (life.last() || fresh == perLife || now < next) {
                    window.release();
                    LockSupport.parkNanos(Math.max(TimeUnit.MICROSECONDS.toNanos(200), Math.min(next - now,
                            TimeUnit.MILLISECONDS.toNanos(5))));
                    continue;
                }
                id = name + "-" + (generated + 1);
                generated++; // one writer: this thread
                fresh++;
                next = Math.max(next + intervalNanos, now - 10 * intervalNanos);
            } else if (acked.containsKey(id)) {
                window.release();
                continue; // a late PubAck came for it meanwhile
            } else {
                republished.incrementAndGet();
            }
            if (!publish(js, id, false)) {
                return;
            }
        }
    }

    /** @return the {@code count} ids acknowledged at the highest sequences */
    private List<String> lastAcknowledged(int count) {
        return acked.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(count)
                .map(Map.Entry::getKey).toList();
    }

    /** @return whether a place in the window was taken (waits at most 100 ms) */
    private boolean acquire() {
        try {
            return window.tryAcquire(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
            return false;
        }
    }

    /**
     * Publishes {@code id} in the place taken in the window; the PubAck or its absence gives it back.
     *
     * @param replay whether {@code id} has its PubAck already (published again after a restart:
     *               the server must answer that it is a duplicate)
     * @return false when the connection is closed (its server died): nothing more to do in this life
     */
    private boolean publish(JetStream js, String id, boolean replay) {
        CompletableFuture<PublishAck> ack;
        try {
            ack = js.publishAsync("load." + name, id.getBytes(StandardCharsets.UTF_8),
                    PublishOptions.builder().messageId(id).build());
        } catch (RuntimeException connectionGone) { // closed with its server: try again in the next life
            window.release();
            if (!replay) {
                unacknowledged.add(id);
            }
            return false;
        }
        ack.orTimeout(PUB_ACK_WAIT.toMillis(), TimeUnit.MILLISECONDS).whenComplete((pubAck, error) -> {
            window.release();
            if (replay) {
                settleReplay(id, pubAck);
            } else {
                settle(id, pubAck);
            }
        });
        return true;
    }

    private void settle(String id, PublishAck pubAck) {
        if (pubAck == null) {
            if (!acked.containsKey(id)) {
                unacknowledged.add(id);
            }
            return;
        }
        if (pubAck.isDuplicate()) {
            duplicates.incrementAndGet();
        }
        Long first = acked.putIfAbsent(id, pubAck.getSeqno());
        if (first != null && first != pubAck.getSeqno()) {
            synchronized (conflicts) {
                conflicts.add(id + " acknowledged at " + first + " and at " + pubAck.getSeqno());
            }
        }
    }

    private void settleReplay(String id, PublishAck pubAck) {
        if (pubAck == null) {
            return; // its server died: nothing to learn
        }
        if (pubAck.isDuplicate() && pubAck.getSeqno() == acked.get(id)) {
            replaysDeduplicated.incrementAndGet();
        } else {
            synchronized (conflicts) {
                conflicts.add(id + ", acknowledged at " + acked.get(id) + ", published again after a restart: "
                        + (pubAck.isDuplicate() ? "duplicate of " : "stored again at ") + pubAck.getSeqno());
            }
        }
    }

    /** @return whether every id generated has its PubAck and no publish awaits one */
    boolean done() {
        return acked.size() == generated && window.availablePermits() == WINDOW;
    }

    void stop() {
        stopped = true;
    }

    /** @return the ids generated, in order */
    List<String> ids() {
        List<String> ids = new ArrayList<>(generated);
        for (int n = 1; n <= generated; n++) {
            ids.add(name + "-" + n);
        }
        return ids;
    }

    /** @return each acknowledged id's stream sequence */
    Map<String, Long> acked() {
        return acked;
    }

    /** @return ids that got PubAcks naming two sequences */
    List<String> conflicts() {
        synchronized (conflicts) {
            return List.copyOf(conflicts);
        }
    }

    /** @return PubAcks that said duplicate: an id published again was stored already */
    int duplicates() {
        return duplicates.get();
    }

    /** @return acknowledged ids published again after a restart and answered as duplicates of their sequence */
    int replaysDeduplicated() {
        return replaysDeduplicated.get();
    }

    /** @return publishes made again for want of a PubAck */
    int republished() {
        return republished.get();
    }
}
