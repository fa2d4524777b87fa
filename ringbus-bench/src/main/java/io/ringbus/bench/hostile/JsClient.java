package io.ringbus.bench.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.LongFunction;

/**
 * A JetStream client written in the protocol's own bytes over one {@link Wire}, so that either
 * server gets exactly the same bytes: API requests and publishes that wait for their answer, and
 * windows of publishes sent ahead of their PubAcks. Answers arrive on an inbox of its own. Not
 * thread-safe.
 */
final class JsClient implements AutoCloseable {
    /** Publishes {@link #fill} sends before it waits for their PubAcks. */
    static final int WINDOW = 256;
    /** The inbox's subscription id. */
    private static final String SID = "1";

    private final Wire wire;
    private final String inbox;
    private long next;

    private JsClient(Wire wire, String inbox) throws IOException {
        this.wire = wire;
        this.inbox = inbox;
        wire.send("SUB " + inbox + ".> " + SID + "\r\n");
    }

    /**
     * @param target the server
     * @param user   a user of {@link HostileConfig}
     * @return a client logged in as {@code user}
     */
    static JsClient login(Target target, String user) throws IOException {
        Wire wire = target.login(user);
        try {
            return new JsClient(wire, "_INBOX.js" + Long.toHexString(System.nanoTime()));
        } catch (IOException e) {
            wire.close();
            throw e;
        }
    }

    /** @return the connection */
    Wire wire() {
        return wire;
    }

    /**
     * @param subject an API subject
     * @param body    the request's JSON (or empty)
     * @return the answer: the payload, or a status message's headers and payload
     */
    String request(String subject, String body) throws IOException {
        String reply = nextReply();
        wire.send(ProtocolAttacks.pub(subject, reply, ascii(body)));
        return await(reply);
    }

    /**
     * Publishes and waits for the PubAck.
     *
     * @param headers a header block ({@code NATS/1.0\r\n...\r\n\r\n}), or null for a PUB
     * @return the PubAck (or JetStream's error)
     */
    String publish(String subject, String headers, byte[] payload) throws IOException {
        String reply = nextReply();
        send(subject, reply, headers, payload);
        return await(reply);
    }

    /**
     * Pulls from a consumer and waits for the first answer: a delivery ({@code "<subject> <payload>"})
     * or a status message ({@code "<reply> NATS/1.0 404 ..."}).
     *
     * @param body the pull request's JSON
     */
    String pull(String stream, String consumer, String body) throws IOException {
        String reply = nextReply();
        wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.MSG.NEXT." + stream + "." + consumer, reply, ascii(body)));
        while (true) {
            String[] answer = readAnswer();
            if (answer[0].equals(reply) || !answer[0].startsWith(inbox)) {
                return answer[0] + " " + answer[1];
            }
        }
    }

    /**
     * Pulls a batch and reads its deliveries until the batch is complete or a status message ends it.
     *
     * @return {deliveries, bytes of their headers and payloads}
     */
    long[] pullBatch(String stream, String consumer, int batch, long expiresNanos) throws IOException {
        String reply = nextReply();
        wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.MSG.NEXT." + stream + "." + consumer, reply,
                ascii("{\"batch\":" + batch + ",\"expires\":" + expiresNanos + "}")));
        long count = 0;
        long bytes = 0;
        while (count < batch) {
            String[] answer = readAnswer();
            if (answer[0].equals(reply)) {
                break;
            }
            if (!answer[0].startsWith(inbox)) {
                count++;
                bytes += answer[1].length();
            }
        }
        return new long[] {count, bytes};
    }

    /** @return the string value after {@code "field":"} in a JSON answer, or null */
    static String text(String json, String field) {
        int at = json.indexOf("\"" + field + "\":\"");
        if (at < 0) {
            return null;
        }
        int start = at + field.length() + 4;
        return json.substring(start, json.indexOf('"', start));
    }

    /** Publishes with a reply subject and does not wait: {@link #awaitAnswers} reads the PubAck. */
    void publishAhead(String subject, String headers, byte[] payload) throws IOException {
        send(subject, nextReply(), headers, payload);
    }

    /**
     * Reads {@code count} answers to this client's inbox, whichever they are.
     *
     * @return how many were JetStream errors
     */
    int awaitAnswers(int count) throws IOException {
        int errors = 0;
        for (int i = 0; i < count; i++) {
            if (awaitAny().contains("\"error\"")) {
                errors++;
            }
        }
        return errors;
    }

    /**
     * Publishes {@code count} messages a window at a time, each waiting for its PubAck.
     *
     * @param subject the subject of the n-th message
     * @return how many were acknowledged without error
     */
    long fill(LongFunction<String> subject, long count, byte[] payload) throws IOException {
        long stored = 0;
        for (long sent = 0; sent < count; ) {
            int window = (int) Math.min(WINDOW, count - sent);
            for (int i = 0; i < window; i++) {
                publishAhead(subject.apply(sent + i), null, payload);
            }
            stored += window - awaitAnswers(window);
            sent += window;
        }
        return stored;
    }

    /** @return the number after {@code "field":} in a JSON answer, or -1 */
    static long number(String json, String field) {
        int at = json.indexOf("\"" + field + "\":");
        if (at < 0) {
            return -1;
        }
        int start = at + field.length() + 3;
        int end = start;
        while (end < json.length() && Character.isDigit(json.charAt(end))) {
            end++;
        }
        return end == start ? -1 : Long.parseLong(json.substring(start, end));
    }

    private void send(String subject, String reply, String headers, byte[] payload) throws IOException {
        wire.send(headers == null ? ProtocolAttacks.pub(subject, reply, payload)
                : ProtocolAttacks.hpub(subject, reply, ascii(headers), payload));
    }

    private String nextReply() {
        return inbox + "." + next++;
    }

    private String await(String reply) throws IOException {
        while (true) {
            String[] answer = readAnswer();
            if (answer[0].equals(reply)) {
                return answer[1];
            }
        }
    }

    private String awaitAny() throws IOException {
        return readAnswer()[1];
    }

    /**
     * @return the next message of this client's subscription (answers to its inbox, deliveries of
     *         pulls): its subject and text
     */
    private String[] readAnswer() throws IOException {
        while (true) {
            String line = wire.readLine();
            if (line.equals("PING")) {
                wire.send("PONG\r\n");
            } else if (line.startsWith("-ERR")) {
                throw new IOException("server answered " + line);
            } else if (line.startsWith("MSG ") || line.startsWith("HMSG ")) {
                String[] parts = line.split(" ");
                String text = new String(wire.readPayload(line), StandardCharsets.UTF_8);
                if (parts[2].equals(SID)) {
                    return new String[] {parts[1], text};
                }
            }
        }
    }

    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        wire.close();
    }
}
