package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One jnats publisher of a power-cut run, for one life of the server, on a thread of its own:
 * JetStream {@code publishAsync} with its id as {@code Nats-Msg-Id} and at the start of the
 * payload, at most {@code window} acknowledgements outstanding. It first sends again, in order, its
 * ids whose acknowledgement never came, then new ones, until stopped or the connection is gone (the
 * server killed). An acknowledgement's time is taken in jnats' completion callback.
 */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; run() handles it
final class JnatsCutPublisher implements PowerCutPublisher, Runnable {
    private static final ErrorListener QUIET = new ErrorListener() {
    };

    private final int publisher;
    private final int port;
    private final int window;
    private final int payloadBytes;
    private final PowerCutLedger ledger;
    private final AtomicLong acks;
    private volatile boolean stop;
    private volatile Connection connection;
    private final Thread thread;

    /**
     * @param publisher    its number (ids {@code <publisher>-<n>}, subject {@code orders.p<publisher>})
     * @param port         the server's client port
     * @param window       acknowledgements outstanding at most
     * @param payloadBytes each payload's size (at least the id)
     * @param ledger       where sends and acknowledgements are recorded
     * @param acks         counts this life's acknowledgements
     */
    private JnatsCutPublisher(int publisher, int port, int window, int payloadBytes, PowerCutLedger ledger,
                              AtomicLong acks) {
        this.publisher = publisher;
        this.port = port;
        this.window = window;
        this.payloadBytes = payloadBytes;
        this.ledger = ledger;
        this.acks = acks;
        this.thread = Thread.ofPlatform().name("powercut-jnats-" + publisher).unstarted(this);
    }

    /**
     * Starts a publisher on a thread of its own.
     *
     * @param publisher    its number (ids {@code <publisher>-<n>}, subject {@code orders.p<publisher>})
     * @param port         the server's client port
     * @param window       acknowledgements outstanding at most
     * @param payloadBytes each payload's size (at least the id)
     * @param ledger       where sends and acknowledgements are recorded
     * @param acks         counts this life's acknowledgements
     * @return it, publishing
     */
    static JnatsCutPublisher start(int publisher, int port, int window, int payloadBytes, PowerCutLedger ledger,
                                   AtomicLong acks) {
        JnatsCutPublisher p = new JnatsCutPublisher(publisher, port, window, payloadBytes, ledger, acks);
        p.thread.start();
        return p;
    }

    @Override
    public void run() {
        Semaphore outstanding = new Semaphore(window);
        List<String> again = ledger.unacknowledged(publisher);
        Iterator<String> resend = again.iterator();
        String subject = "orders.p" + publisher;
        try (Connection nc = Nats.connect(Options.builder().server("nats://127.0.0.1:" + port).maxReconnects(0)
                .connectionTimeout(Duration.ofSeconds(10)).errorListener(QUIET).build())) {
            connection = nc;
            JetStream js = nc.jetStream();
            while (!stop && nc.getStatus() == Connection.Status.CONNECTED) {
                if (!outstanding.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                String id = resend.hasNext() ? resend.next() : ledger.next(publisher);
                js.publishAsync(subject, payload(id), PublishOptions.builder().messageId(id).build())
                        .whenComplete((ack, error) -> {
                            if (error == null && !ack.hasError()) {
                                ledger.acked(id, ack.getSeqno(), ack.isDuplicate(), System.nanoTime());
                                acks.incrementAndGet();
                            }
                            outstanding.release();
                        });
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the server was killed under it: what was acknowledged is in the ledger
        }
    }

    private byte[] payload(String id) {
        StringBuilder text = new StringBuilder(payloadBytes).append(id).append(' ');
        while (text.length() < payloadBytes) {
            text.append('x');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void stop() throws InterruptedException {
        stop = true;
        Connection nc = connection;
        if (nc != null) {
            nc.close();
        }
        thread.join(STOP_TIMEOUT.toMillis());
        if (thread.isAlive()) {
            throw new AssertionError("jnats publisher " + publisher + " still runs " + STOP_TIMEOUT + " after stop");
        }
    }
}
