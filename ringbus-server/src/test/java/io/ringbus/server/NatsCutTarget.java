package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.ringbus.testkit.Await;

import io.ringbus.testkit.ReferenceNatsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * nats-server 2.9 ({@link ReferenceNatsServer#BINARY}) with {@code -js} and its {@code store_dir}
 * on the mount, its defaults kept (JetStream acknowledges before an fsync: that is its policy);
 * the stream is created through {@code $JS.API.STREAM.CREATE} (jnats' {@code addStream}) when the
 * store does not have it. Read back through {@code $JS.API.STREAM.MSG.GET}, one message at a time.
 */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the methods declare or handle it
final class NatsCutTarget implements PowerCutTarget {
    private final long maxBytes;
    private Process process;
    private int port;
    private int streamsCreated;

    /** @param maxBytes the stream's {@code max_bytes} (discard old) */
    NatsCutTarget(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public String server() {
        return "nats-server";
    }

    @Override
    public String policy() {
        return "default";
    }

    @Override
    public String notes() {
        return streamsCreated > 1 ? "stream lost and re-created " + (streamsCreated - 1) + " times" : "";
    }

    @Override
    public int start(Path dir) throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        process = new ProcessBuilder(ReferenceNatsServer.BINARY, "-a", "127.0.0.1", "-p", String.valueOf(port),
                "-js", "-sd", dir.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Process started = process;
        Await.until("nats-server -js accepts connections on " + port, Duration.ofSeconds(60), () -> {
            if (!started.isAlive()) {
                throw new AssertionError("nats-server -js exited (" + started.exitValue() + ") on " + dir);
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                return true;
            } catch (IOException notYet) {
                return false;
            }
        });
        try (Connection nc = connect()) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            if (!jsm.getStreamNames().contains(STREAM)) {
                jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects(SUBJECTS)
                        .storageType(StorageType.File).maxBytes(maxBytes).build());
                streamsCreated++;
            }
        } catch (JetStreamApiException e) {
            throw new AssertionError("nats-server -js on " + dir + " refused the stream: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return port;
    }

    private Connection connect() throws IOException, InterruptedException {
        return Nats.connect(Options.builder().server("nats://127.0.0.1:" + port).maxReconnects(0)
                .connectionTimeout(Duration.ofSeconds(10)).build());
    }

    @Override
    public void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("nats-server did not die on SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public List<StoredId> readBack(Path dir) throws IOException {
        start(dir);
        List<StoredId> out = new ArrayList<>();
        try (Connection nc = connect()) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            StreamInfo info = jsm.getStreamInfo(STREAM);
            long first = info.getStreamState().getFirstSequence();
            long last = info.getStreamState().getLastSequence();
            for (long seq = first; seq <= last && seq > 0; seq++) {
                try {
                    MessageInfo m = jsm.getMessage(STREAM, seq);
                    out.add(new StoredId(seq, PowerCutLedger.idOf(new String(m.getData(), StandardCharsets.US_ASCII))));
                } catch (JetStreamApiException deleted) {
                    // 10037: no message at this sequence (deleted or lost in the middle)
                }
            }
        } catch (JetStreamApiException e) {
            throw new AssertionError("nats-server -js on " + dir + " has no stream after the cut: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } finally {
            kill();
        }
        return out;
    }
}
