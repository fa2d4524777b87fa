package io.ringbus.core;

/**
 * A store refused a message before storing anything, for a reason JetStream gives the same error:
 * the NATS front answers a publish that asked for a PubAck with JetStream's error form,
 * {@code {"error":{"code":<status>,"err_code":<errorCode>,"description":<message>}}}.
 *
 * <p>An {@link IllegalArgumentException}: the message itself was at fault, and retrying it fails
 * the same way.
 */
public final class PublishRejectedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The most bytes of headers a durable publish may carry: nats-server's 64k (JetStream's 16-bit length). */
    public static final int MAX_HEADER_BYTES = 65_535;
    /** JetStream's {@code JSStreamHeaderExceedsMaximumErr}. */
    public static final int HEADER_TOO_LARGE = 10097;

    /** The HTTP-like status JetStream gives the error ({@code code}). */
    private final int status;
    /** JetStream's error code ({@code err_code}). */
    private final int errorCode;
    /** The stream that refused it, or null. */
    private final String stream;

    /**
     * @param status    the HTTP-like status ({@code code})
     * @param errorCode JetStream's {@code err_code}
     * @param message   the description, as nats-server words it where it has one
     */
    public PublishRejectedException(int status, int errorCode, String message) {
        this(status, errorCode, message, null);
    }

    /**
     * @param status    the HTTP-like status ({@code code})
     * @param errorCode JetStream's {@code err_code}
     * @param message   the description, as nats-server words it where it has one
     * @param stream    the stream that refused the message (JetStream names it in the PubAck), or null
     */
    public PublishRejectedException(int status, int errorCode, String message, String stream) {
        super(message);
        this.status = status;
        this.errorCode = errorCode;
        this.stream = stream;
    }

    /**
     * The refusal of a header block over {@link #MAX_HEADER_BYTES}, worded as nats-server's.
     *
     * @return the exception
     */
    public static PublishRejectedException headersTooLarge() {
        return new PublishRejectedException(400, HEADER_TOO_LARGE, "header size exceeds maximum allowed of 64k");
    }

    /** @return the HTTP-like status JetStream gives the error ({@code code}) */
    public int status() {
        return status;
    }

    /** @return JetStream's error code ({@code err_code}) */
    public int errorCode() {
        return errorCode;
    }

    /** @return the stream that refused the message, or null when none is named */
    public String stream() {
        return stream;
    }
}
