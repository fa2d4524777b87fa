import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A NATS client session against a running ringbus-server, as a user's application would have:
 * jnats connects, subscribes, publishes and gets its message back, answers and makes a request,
 * and (with --jetstream) creates a stream and publishes to it with a PubAck. bin/dist runs it to
 * train the distribution's AOT cache, bin/dist-test to check the unpacked distribution.
 *
 * <p>Run with the source launcher: {@code java -cp jnats.jar RoundTrip.java nats://127.0.0.1:4222
 * [--tls-ca ca.pem] [--jetstream] [--monitor http://127.0.0.1:8222]}. Exit status 0 when every step
 * got its answer; 1 with one line saying which did not.
 */
public final class RoundTrip {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private RoundTrip() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Path ca = null;
        boolean jetStream = false;
        String monitor = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--tls-ca" -> ca = Path.of(args[++i]);
                case "--jetstream" -> jetStream = true;
                case "--monitor" -> monitor = args[++i];
                default -> fail("unknown argument: " + args[i]);
            }
        }
        Options.Builder options = new Options.Builder().server(url).connectionTimeout(WAIT).maxReconnects(0);
        if (ca != null) {
            options.sslContext(trusting(ca));
        }
        try (Connection nc = Nats.connect(options.build())) {
            Subscription sub = nc.subscribe("dist.check");
            nc.flush(WAIT);
            nc.publish("dist.check", "hello".getBytes(StandardCharsets.UTF_8));
            Message got = sub.nextMessage(WAIT);
            if (got == null || !"hello".equals(new String(got.getData(), StandardCharsets.UTF_8))) {
                fail("published 'hello' on dist.check, received " + (got == null ? "nothing" : got));
            }
            Dispatcher echo = nc.createDispatcher(request -> nc.publish(request.getReplyTo(), request.getData()));
            echo.subscribe("dist.echo");
            nc.flush(WAIT);
            Message reply = nc.request("dist.echo", "ping".getBytes(StandardCharsets.UTF_8), WAIT);
            if (reply == null || !"ping".equals(new String(reply.getData(), StandardCharsets.UTF_8))) {
                fail("request on dist.echo got " + reply);
            }
            String stored = "";
            if (jetStream) {
                nc.jetStreamManagement().addStream(StreamConfiguration.builder().name("DIST")
                        .subjects("dist.stored.>").storageType(StorageType.File).build());
                PublishAck ack = nc.jetStream().publish("dist.stored.one", "kept".getBytes(StandardCharsets.UTF_8));
                if (ack.getSeqno() < 1 || !"DIST".equals(ack.getStream())) {
                    fail("JetStream publish acknowledged as " + ack);
                }
                stored = ", stored as DIST #" + ack.getSeqno();
            }
            String monitored = "";
            if (monitor != null) {
                HttpResponse<String> varz = HttpClient.newHttpClient().send(
                        HttpRequest.newBuilder(URI.create(monitor + "/varz")).timeout(WAIT).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (varz.statusCode() != 200 || !varz.body().contains("\"server_id\"")) {
                    fail("GET " + monitor + "/varz: " + varz.statusCode() + " " + varz.body());
                }
                monitored = ", /varz answered";
            }
            System.out.println("round trip ok: published, received, request answered" + stored + monitored
                    + " (" + nc.getServerInfo().getVersion() + ")");
        }
    }

    private static SSLContext trusting(Path caPem) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static void fail(String message) {
        System.err.println("round trip failed: " + message);
        System.exit(1);
    }
}
