package io.ringbus.server.internal;

/**
 * The NATS protocol errors ringbus-server sends, with NATS's own wording, and whether NATS
 * closes the connection after each. Sent as {@code -ERR '<text>'\r\n}.
 */
public enum ProtocolError {
    UNKNOWN_OPERATION("Unknown Protocol Operation", true),
    PARSER_ERROR("Parser Error", true),
    MAX_CONTROL_LINE("Maximum Control Line Exceeded", true),
    MAX_PAYLOAD("Maximum Payload Violation", true),
    INVALID_CLIENT_PROTOCOL("Invalid Client Protocol", true),
    AUTHORIZATION_VIOLATION("Authorization Violation", true),
    AUTHORIZATION_TIMEOUT("Authentication Timeout", true),
    STALE_CONNECTION("Stale Connection", true),
    MAX_CONNECTIONS("maximum connections exceeded", true),
    SLOW_CONSUMER("Slow Consumer", true),
    NO_RESPONDERS_REQUIRES_HEADERS("No Responders Requires Headers Support", true),
    INVALID_SUBJECT("Invalid Subject", false),
    INVALID_PUBLISH_SUBJECT("Invalid Publish Subject", false);

    private final String text;
    private final boolean closes;

    ProtocolError(String text, boolean closes) {
        this.text = text;
        this.closes = closes;
    }

    /** @return the error text NATS uses, without quotes */
    public String text() {
        return text;
    }

    /** @return whether the connection is closed after sending it */
    public boolean closes() {
        return closes;
    }
}
