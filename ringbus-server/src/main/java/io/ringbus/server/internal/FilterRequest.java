package io.ringbus.server.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.ringbus.core.MessageFilter;
import io.ringbus.server.ServerRequests;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/**
 * A network client's request to filter its own subscriptions, sent as a NATS request to
 * {@value #SUBJECT} (any NATS client can: nothing in the client changes). The payload is one JSON
 * object:
 *
 * <pre>
 * {"subject": "orders.*", ["queue": "workers",] "headers": {SNS filter policy}}   over headers
 * {"subject": "orders.*", ["queue": "workers",] "body": {SNS filter policy}}      over a JSON body
 * {"subject": "orders.*", ["queue": "workers"]}                                   no filter again
 * {"sid": "3", "headers" | "body": {...}}                                         one subscription
 * </pre>
 *
 * A filter named by subject (and queue group) applies to the connection's subscriptions with that
 * exact subject and group, those it makes afterwards and those it has (re-made as a SUB with the
 * same sid re-makes them); one named by sid applies to that subscription only. The reply is
 * {@code {"subject":...,"filter":...,"applied":N}} (N: existing subscriptions re-made), or
 * {@code {"error":{"code":400,"description":...}}} naming the bad part, as JetStream's API replies.
 *
 * @param sid     the subscription the request names, or {@code null} for a subject
 * @param subject the subject or pattern, or {@code null} when a sid is named
 * @param queue   the queue group with the subject, or {@code null}
 * @param filter  the filter, or {@code null} to remove one
 */
record FilterRequest(String sid, String subject, String queue, MessageFilter filter) {
    /** The API subject. */
    static final String SUBJECT = ServerRequests.FILTER_API;
    /** Subjects under it are the server's API, never routed to subscribers. */
    static final String API_PREFIX = ServerRequests.API_PREFIX;
    /** Largest request accepted: a policy is at most 16 KiB, and the rest is small. */
    static final int MAX_REQUEST_BYTES = 32 * 1024;

    private static final JsonFactory JSON = new JsonFactory();

    /**
     * @param payload the request's bytes (UTF-8 JSON)
     * @return the request
     * @throws IllegalArgumentException naming what is wrong (the JSON, a field, the policy's bad part)
     */
    static FilterRequest parse(byte[] payload) {
        if (payload.length > MAX_REQUEST_BYTES) {
            throw new IllegalArgumentException("filter request too large: " + payload.length + " bytes (at most "
                    + MAX_REQUEST_BYTES + ")");
        }
        String sid = null;
        String subject = null;
        String queue = null;
        MessageFilter filter = null;
        try (JsonParser parser = JSON.createParser(payload)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("filter request must be a JSON object: "
                        + new String(payload, StandardCharsets.UTF_8));
            }
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "sid" -> sid = text(parser, value, field);
                    case "subject" -> subject = text(parser, value, field);
                    case "queue" -> queue = text(parser, value, field);
                    case "headers", "body" -> {
                        if (filter != null) {
                            throw new IllegalArgumentException("filter request names both \"headers\" and \"body\"");
                        }
                        if (value != JsonToken.START_OBJECT) {
                            throw new IllegalArgumentException("filter request: \"" + field
                                    + "\" must be an SNS filter policy object, not " + value);
                        }
                        String policy = copyObject(parser);
                        filter = field.equals("headers") ? MessageFilter.headers(policy) : MessageFilter.body(policy);
                    }
                    default -> throw new IllegalArgumentException("filter request: unknown field \"" + field
                            + "\" (expected sid, subject, queue, headers or body)");
                }
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("filter request is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException("filter request is not valid JSON: " + e.getMessage());
        }
        if ((sid == null) == (subject == null)) {
            throw new IllegalArgumentException("filter request must name a \"subject\" or a \"sid\", not "
                    + (sid == null ? "neither" : "both"));
        }
        if (sid != null && queue != null) {
            throw new IllegalArgumentException("filter request: \"queue\" goes with \"subject\", not with \"sid\"");
        }
        return new FilterRequest(sid, subject, queue, filter);
    }

    /** @return the key of a subject-and-group filter in a connection's table */
    static String key(String subject, String queue) {
        return queue == null ? subject : subject + ' ' + queue;
    }

    /** @return the success reply */
    byte[] reply(int applied) {
        StringBuilder json = new StringBuilder(128).append('{');
        if (sid != null) {
            json.append("\"sid\":").append(quote(sid));
        } else {
            json.append("\"subject\":").append(quote(subject));
            if (queue != null) {
                json.append(",\"queue\":").append(quote(queue));
            }
        }
        json.append(",\"filter\":").append(filter == null ? "null" : quote(filter.text()))
                .append(",\"applied\":").append(applied).append('}');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @return an error reply in JetStream's API form */
    static byte[] error(int code, String description) {
        return ("{\"error\":{\"code\":" + code + ",\"description\":" + quote(description) + "}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String quote(String text) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"';
    }

    private static String text(JsonParser parser, JsonToken value, String field) throws IOException {
        if (value != JsonToken.VALUE_STRING || parser.getText().isBlank()) {
            throw new IllegalArgumentException("filter request: \"" + field + "\" must be a non-empty string, not "
                    + (value == JsonToken.VALUE_STRING ? "\"" + parser.getText() + "\"" : value));
        }
        return parser.getText();
    }

    /** The object the parser is at, as JSON text (the policy compiler reads it again). */
    private static String copyObject(JsonParser parser) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            generator.copyCurrentStructure(parser);
        }
        return out.toString();
    }
}
