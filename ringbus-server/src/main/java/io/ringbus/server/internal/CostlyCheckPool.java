package io.ringbus.server.internal;

import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthenticationException;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Where costly credential checks (bcrypt, tens to hundreds of milliseconds of CPU each) run, for
 * the NATS port and the monitor together: a fixed number of threads, and a FIFO queue per source
 * (remote IP address) served round-robin, so that one address's flood of wrong passwords delays
 * another address's login by at most one check per thread.
 *
 * <p>Bounds, each counted in {@link ServerCounters}:
 * <ul>
 *   <li>a source with {@code perSource} checks already waiting is refused at once
 *       ({@link AuthFailure#AUTHENTICATOR_BUSY}, {@code refused});</li>
 *   <li>a check whose client's deadline passed before a thread took it is never run
 *       ({@link TimeoutException}, {@code expired});</li>
 *   <li>a check whose client left ({@link CheckTicket#abandon()}) is dropped from its queue and
 *       never run ({@code abandoned}).</li>
 * </ul>
 * Sources whose check failed in the last {@value #SUSPECT_SECONDS} s (a wrong password) are
 * served after every other source: an attacker with many addresses gets one check per address
 * before a valid user's, not one per address for every one of theirs; the last
 * {@value #MAX_SUSPECTS} such sources are remembered.
 *
 * <p>Each connection has at most one check waiting (a NATS connection reads nothing while its
 * CONNECT is checked; the monitor answers one request of a connection at a time), so all queues
 * together hold at most one check per connection.
 *
 * <p>Threading: {@link #submit} and {@link CheckTicket#abandon()} from any thread, never blocking;
 * answers complete on the pool's threads ({@code ringbus-auth-check-N}, daemons, started at the
 * first check so a server without bcrypt passwords has none).
 */
public final class CostlyCheckPool implements AutoCloseable {
    /** How long a source whose check failed is served after the others. */
    static final int SUSPECT_SECONDS = 60;
    /** Sources with a failed check remembered at most (the oldest forgotten first). */
    static final int MAX_SUSPECTS = 4_096;

    private final int threadCount;
    private final int perSource;
    private final ServerCounters counters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition waiting = lock.newCondition();
    /** Sources with checks waiting, in turn order: the first is served next, then goes to the back. Under lock. */
    private final LinkedHashMap<String, ArrayDeque<Check<?>>> queues = new LinkedHashMap<>();
    /** Sources whose last check failed, by when, oldest first. Under lock. */
    private final LinkedHashMap<String, Long> suspects = new LinkedHashMap<>();
    /** Checks waiting in all queues. Under lock. */
    private int queued;
    private boolean started;
    private boolean closed;

    /** A check waiting for a thread: what to run, for whom, and where its answer goes. */
    private record Check<T>(CheckTicket ticket, Supplier<T> work, CompletableFuture<T> answer) {
    }

    /**
     * @param threads   threads that run checks, at least 1
     * @param perSource checks that may wait per source, at least 1
     * @param counters  where outcomes are counted
     */
    CostlyCheckPool(int threads, int perSource, ServerCounters counters) {
        this.threadCount = threads;
        this.perSource = perSource;
        this.counters = counters;
    }

    /**
     * @param remote  the client's address: its IP address is the source
     * @param timeout how long from now the client waits for its answer
     * @return a ticket for the checks of one authentication attempt
     */
    public CheckTicket ticket(SocketAddress remote, Duration timeout) {
        return new CheckTicket(this, CheckTicket.sourceOf(remote), System.nanoTime() + timeout.toNanos());
    }

    /**
     * Queues {@code work} under the ticket's source. Never blocks.
     *
     * @return its answer: the work's result or exception; an {@link AuthenticationException}
     *         ({@link AuthFailure#AUTHENTICATOR_BUSY}) at once when the source's queue is full; a
     *         {@link TimeoutException} when no thread took it before the ticket's deadline; a
     *         {@link CancellationException} when the ticket was abandoned first
     */
    public <T> CompletableFuture<T> submit(CheckTicket ticket, Supplier<T> work) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        if (ticket.abandoned()) {
            counters.authChecksAbandoned.increment();
            answer.cancel(false);
            return answer;
        }
        lock.lock();
        try {
            if (closed) {
                answer.completeExceptionally(new RejectedExecutionException("the server is closing"));
                return answer;
            }
            ArrayDeque<Check<?>> queue = queues.get(ticket.source());
            if (queue != null && queue.size() >= perSource) {
                counters.authChecksRefused.increment();
                answer.completeExceptionally(new AuthenticationException(AuthFailure.AUTHENTICATOR_BUSY,
                        perSource + " costly checks already wait for source " + ticket.source()
                                + " (auth_checks_per_source)"));
                return answer;
            }
            if (queue == null) {
                queue = new ArrayDeque<>();
                queues.putLast(ticket.source(), queue);
            }
            queue.add(new Check<>(ticket, work, answer));
            queued++;
            startThreadsOnce();
            waiting.signal();
        } finally {
            lock.unlock();
        }
        return answer;
    }

    /**
     * Notes that a check of the ticket's source failed (a wrong password): its later checks wait
     * until no other source's do, for {@value #SUSPECT_SECONDS} s. Never blocks for long.
     */
    public void failed(CheckTicket ticket) {
        lock.lock();
        try {
            suspects.remove(ticket.source());
            suspects.put(ticket.source(), System.nanoTime());
            if (suspects.size() > MAX_SUSPECTS) {
                suspects.pollFirstEntry();
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return sources remembered for a failed check (served after the others) */
    public int suspects() {
        lock.lock();
        try {
            return suspects.size();
        } finally {
            lock.unlock();
        }
    }

    /** @return checks waiting for a thread now, all sources together */
    public int queued() {
        lock.lock();
        try {
            return queued;
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of threads that run checks */
    public int threads() {
        return threadCount;
    }

    /** @return checks that may wait per source */
    public int perSource() {
        return perSource;
    }

    /** Drops the checks of {@code ticket} still waiting; called by {@link CheckTicket#abandon()}. */
    void drop(CheckTicket ticket) {
        List<Check<?>> dropped = new ArrayList<>(1);
        lock.lock();
        try {
            ArrayDeque<Check<?>> queue = queues.get(ticket.source());
            if (queue == null) {
                return;
            }
            queue.removeIf(check -> {
                boolean mine = check.ticket() == ticket;
                if (mine) {
                    dropped.add(check);
                }
                return mine;
            });
            queued -= dropped.size();
            if (queue.isEmpty()) {
                queues.remove(ticket.source());
            }
        } finally {
            lock.unlock();
        }
        for (Check<?> check : dropped) {
            counters.authChecksAbandoned.increment();
            check.answer().cancel(false);
        }
    }

    /** Refuses further checks and fails those waiting; running ones finish. Idempotent. */
    @Override
    public void close() {
        List<Check<?>> left = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
            queues.values().forEach(left::addAll);
            queues.clear();
            queued = 0;
            waiting.signalAll();
        } finally {
            lock.unlock();
        }
        for (Check<?> check : left) {
            check.answer().completeExceptionally(new RejectedExecutionException("the server is closing"));
        }
    }

    /** Under lock. */
    private void startThreadsOnce() {
        if (!started) {
            started = true;
            for (int i = 0; i < threadCount; i++) {
                Thread.ofPlatform().daemon().name("ringbus-auth-check-" + i).start(this::serve);
            }
        }
    }

    private void serve() {
        for (Check<?> check = next(); check != null; check = next()) {
            run(check);
        }
    }

    /** @return the first check of the source whose turn it is, or {@code null} once closed */
    private Check<?> next() {
        lock.lock();
        try {
            while (queues.isEmpty()) {
                if (closed) {
                    return null;
                }
                waiting.awaitUninterruptibly();
            }
            Map.Entry<String, ArrayDeque<Check<?>>> turn = nextTurn();
            Check<?> check = turn.getValue().poll();
            queued--;
            if (!turn.getValue().isEmpty()) {
                queues.putLast(turn.getKey(), turn.getValue()); // round-robin: its next check waits for the others
            }
            return check;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under lock, {@code queues} not empty: removes and returns the first source in turn order
     * without a recent failed check, or else the first source.
     */
    private Map.Entry<String, ArrayDeque<Check<?>>> nextTurn() {
        long now = System.nanoTime();
        long suspectNanos = SUSPECT_SECONDS * 1_000_000_000L;
        while (!suspects.isEmpty() && now - suspects.firstEntry().getValue() > suspectNanos) {
            suspects.pollFirstEntry();
        }
        if (!suspects.isEmpty()) {
            for (Map.Entry<String, ArrayDeque<Check<?>>> entry : queues.entrySet()) {
                if (!suspects.containsKey(entry.getKey())) {
                    queues.remove(entry.getKey());
                    return entry;
                }
            }
        }
        return queues.pollFirstEntry();
    }

    private <T> void run(Check<T> check) {
        if (check.ticket().abandoned()) {
            counters.authChecksAbandoned.increment();
            check.answer().cancel(false);
            return;
        }
        if (check.ticket().expiredAt(System.nanoTime())) {
            counters.authChecksExpired.increment();
            check.answer().completeExceptionally(new TimeoutException("no thread took the check before the "
                    + "client's deadline (authenticator_timeout)"));
            return;
        }
        counters.authChecksRun.increment();
        try {
            check.answer().complete(check.work().get());
        } catch (RuntimeException e) {
            check.answer().completeExceptionally(e);
        } catch (Error e) {
            check.answer().completeExceptionally(e);
            throw e;
        }
    }
}
