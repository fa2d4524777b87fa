package io.ringbus.bench.hostile;

import io.ringbus.bench.network.ServerKind;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The server an attack is sent to.
 *
 * @param kind        which server
 * @param port        its NATS port on 127.0.0.1
 * @param monitorPort its HTTP monitoring port on 127.0.0.1
 * @param notes       what the attack saw, for the report (a count, the server's refusal)
 */
record Target(ServerKind kind, int port, int monitorPort, List<String> notes) {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A server with no notes yet. */
    Target(ServerKind kind, int port, int monitorPort) {
        this(kind, port, monitorPort, new CopyOnWriteArrayList<>());
    }

    /** Records what the attack saw, for the report. */
    void note(String text) {
        notes.add(text);
    }

    /**
     * @param user a user of {@link HostileConfig}
     * @return a connection logged in as {@code user}
     */
    Wire login(String user) throws IOException {
        return Wire.login(port, HostileConfig.login(user));
    }

    /** @return whether this is ringbus-server */
    boolean ringbus() {
        return kind == ServerKind.RINGBUS;
    }

    /**
     * @param user     a user of {@link HostileConfig}
     * @param password its password (right or wrong)
     * @return an HTTP Basic {@code Authorization} header value
     */
    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes());
    }

    /**
     * GETs a monitoring path.
     *
     * @param path          e.g. {@code /healthz}
     * @param authorization the header, or {@code null}
     * @return the status code
     */
    int monitor(String path, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitorPort + path))
                .timeout(Duration.ofSeconds(10)).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * GETs a monitoring path with a ROOT credential.
     *
     * @param path e.g. {@code /jsz?consumers=true}
     * @return the status code and body
     */
    HttpResponse<String> monitorBody(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitorPort + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", basic("root", "root-secret")).GET().build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
