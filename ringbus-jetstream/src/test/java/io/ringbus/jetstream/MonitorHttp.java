package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** Reads a monitoring port (ringbus's or nats-server's) over real HTTP, with or without a Basic credential. */
final class MonitorHttp {
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String authorization;

    MonitorHttp(int port) {
        this(port, null, null);
    }

    MonitorHttp(int port, String user, String password) {
        this.base = "http://127.0.0.1:" + port;
        this.authorization = user == null ? null : "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<String> get(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("GET " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** GETs a JSON path, checks 200, parses the body. */
    JsonNode json(String path) {
        HttpResponse<String> response = get(path);
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + path + ": not JSON: " + response.body(), e);
        }
    }
}
