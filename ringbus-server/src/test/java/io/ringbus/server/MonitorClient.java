package io.ringbus.server;

import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads a monitoring port over real HTTP (the JDK's client), and picks values out of its JSON
 * with jnats' parser (so the test does not share a JSON library with the server).
 */
final class MonitorClient {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    MonitorClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    HttpResponse<String> get(String path, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), headers);
    }

    HttpResponse<String> send(HttpRequest.Builder request, String... headers) {
        if (headers.length > 0) {
            request.headers(headers);
        }
        try {
            return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("GET " + request + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** GETs a JSON endpoint (with {@code headers}, name and value pairs), checks 200 and the content type, and parses the body. */
    JsonValue json(String path, String... headers) {
        HttpResponse<String> response = get(path, headers);
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        return JsonParser.parseUnchecked(response.body());
    }

    static long number(JsonValue object, String key) {
        JsonValue value = field(object, key);
        assertThat(value.number).as("%s is a number in %s", key, object.toJson()).isNotNull();
        return value.number.longValue();
    }

    static String string(JsonValue object, String key) {
        JsonValue value = field(object, key);
        assertThat(value.string).as("%s is a string in %s", key, object.toJson()).isNotNull();
        return value.string;
    }

    static List<JsonValue> array(JsonValue object, String key) {
        JsonValue value = field(object, key);
        assertThat(value.array).as("%s is an array in %s", key, object.toJson()).isNotNull();
        return value.array;
    }

    static JsonValue field(JsonValue object, String key) {
        assertThat(object.map).as("an object: %s", object.toJson()).isNotNull().containsKey(key);
        return object.map.get(key);
    }

    /** The entry of {@code list} whose string field {@code key} is {@code value}. */
    static JsonValue find(List<JsonValue> list, String key, String value) {
        List<JsonValue> found = new ArrayList<>();
        for (JsonValue item : list) {
            if (item.map != null && item.map.get(key) != null && value.equals(item.map.get(key).string)) {
                found.add(item);
            }
        }
        assertThat(found).as("one entry with %s=%s in %s", key, value, list).hasSize(1);
        return found.get(0);
    }
}
