package io.ringbus.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * One nats.go publisher of a power-cut run, for one life of the server: the Go program
 * {@code src/test/go/powercutpub} ({@link GoProgram}), given the numbers to send again and the
 * first new number; a thread of ours reads its report lines and records them in the ledger as
 * they come: {@code SENT <n>} ({@link PowerCutLedger#next}, checked to be the number the ledger
 * expects), {@code ACK <n> <seq> <dup>} ({@link PowerCutLedger#acked}, its time taken when the line
 * is read: the program writes each line unbuffered as the acknowledgement arrives), {@code END
 * <reason>}. Stopped by closing its stdin; it also ends by itself when its connection is gone.
 */
final class GoCutPublisher implements PowerCutPublisher {
    private final int publisher;
    private final Process process;
    private final Thread reader;
    private final List<String> problems = new ArrayList<>();
    private final List<String> tail = new ArrayList<>();

    private GoCutPublisher(int publisher, Process process, PowerCutLedger ledger, AtomicLong acks) {
        this.publisher = publisher;
        this.process = process;
        this.reader = Thread.ofPlatform().name("powercut-nats.go-" + publisher).unstarted(() -> read(ledger, acks));
    }

    /**
     * Starts the program for one publisher.
     *
     * @param binary       the built program ({@link GoProgram#build})
     * @param publisher    its number (ids {@code <publisher>-<n>}, subject {@code orders.p<publisher>})
     * @param port         the server's client port
     * @param window       acknowledgements outstanding at most
     * @param payloadBytes each payload's size (at least the id)
     * @param ledger       where sends and acknowledgements are recorded
     * @param acks         counts this life's acknowledgements
     * @return it, publishing
     */
    static GoCutPublisher start(Path binary, int publisher, int port, int window, int payloadBytes,
                                PowerCutLedger ledger, AtomicLong acks) {
        String again = ledger.unacknowledged(publisher).stream().map(id -> id.substring(id.indexOf('-') + 1))
                .collect(Collectors.joining(","));
        String next = ledger.peekNext(publisher);
        List<String> command = List.of(binary.toString(), "-url", "nats://127.0.0.1:" + port,
                "-publisher", String.valueOf(publisher), "-window", String.valueOf(window),
                "-payload", String.valueOf(payloadBytes), "-next", next.substring(next.indexOf('-') + 1),
                "-resend", again);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            GoCutPublisher p = new GoCutPublisher(publisher, process, ledger, acks);
            p.reader.start();
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
    }

    private void read(PowerCutLedger ledger, AtomicLong acks) {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                long now = System.nanoTime();
                String[] f = line.split(" ");
                if (f[0].equals("ACK") && f.length == 4) {
                    ledger.acked(PowerCutLedger.id(publisher, Long.parseLong(f[1])), Long.parseLong(f[2]),
                            f[3].equals("1"), now);
                    acks.incrementAndGet();
                } else if (f[0].equals("SENT") && f.length == 2) {
                    String expected = ledger.next(publisher);
                    String sent = PowerCutLedger.id(publisher, Long.parseLong(f[1]));
                    if (!sent.equals(expected)) {
                        problem("sent " + sent + " where the ledger's next id was " + expected);
                    }
                } else if (!f[0].equals("END")) {
                    remember(line); // usage or a crash: shown if it fails
                }
            }
        } catch (IOException | RuntimeException e) {
            problem("reading its report failed: " + e);
        }
    }

    private synchronized void problem(String text) {
        problems.add(text);
    }

    private synchronized void remember(String line) {
        if (tail.size() < 50) {
            tail.add(line);
        }
    }

    @Override
    public void stop() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException alreadyGone) {
            // it ended by itself
        }
        boolean ended = process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        reader.join(STOP_TIMEOUT.toMillis());
        synchronized (this) {
            if (!ended || reader.isAlive() || process.exitValue() != 0 || !problems.isEmpty()) {
                throw new AssertionError("nats.go publisher " + publisher + (ended ? " exited " + process.exitValue()
                        : " still ran " + STOP_TIMEOUT + " after stop") + "; problems " + problems
                        + "; output " + tail);
            }
        }
    }
}
