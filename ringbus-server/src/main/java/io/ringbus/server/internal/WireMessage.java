package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.ringbus.core.Client;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.wire.NatsHeaderBlock;

/**
 * A PUB or HPUB while it is routed: a view of the publishing connection's input buffer
 * ({@link Client#tryPublishView}), so that a delivery to a network subscriber copies the payload
 * once, from the publisher's input into the subscriber's output ({@link Outbound}), with no
 * message object and no {@code byte[]} on the way.
 *
 * <p>One per connection, refilled for each publish and cleared after it, on the connection's
 * event loop. Whoever needs the message as objects gets them on demand, made once per publish:
 * {@link #payload()} copies the bytes out (the ring, the store, the federation, in-process
 * subscribers), {@link #headers()} parses the header block, {@link #copy()} detaches it.
 */
final class WireMessage implements Message {
    private final long origin;
    private final Publisher publisher;
    private String subject;
    private String replyTo;
    private ByteBuf input;
    private int headersAt;
    private int headersLength;
    private int payloadAt;
    private int payloadLength;
    private byte[] payload;
    private Headers headers;
    private Message copy;

    /**
     * @param origin    the publishing client's id
     * @param publisher the connection whose input this views
     */
    WireMessage(long origin, Publisher publisher) {
        this.origin = origin;
        this.publisher = publisher;
    }

    /**
     * Views one publish.
     *
     * @param headersLength the header block's length, 0 for a PUB; the payload follows the block
     */
    WireMessage set(String subject, String replyTo, ByteBuf input, int headersAt, int headersLength,
                    int payloadLength) {
        this.subject = subject;
        this.replyTo = replyTo;
        this.input = input;
        this.headersAt = headersAt;
        this.headersLength = headersLength;
        this.payloadAt = headersAt + headersLength;
        this.payloadLength = payloadLength;
        return this;
    }

    /** Forgets the publish: nothing of the input is kept past it. */
    void clear() {
        input = null;
        payload = null;
        headers = null;
        copy = null;
        subject = null;
        replyTo = null;
    }

    /** @return the connection whose publish this is */
    Publisher publisher() {
        return publisher;
    }

    /** @return the buffer the header block and payload lie in */
    ByteBuf input() {
        return input;
    }

    int headersAt() {
        return headersAt;
    }

    /** @return the header block's length as received; 0 for a PUB */
    int headersLength() {
        return headersLength;
    }

    int payloadAt() {
        return payloadAt;
    }

    int payloadLength() {
        return payloadLength;
    }

    @Override
    public String subject() {
        return subject;
    }

    @Override
    public String replyTo() {
        return replyTo;
    }

    @Override
    public Headers headers() {
        Headers h = headers;
        if (h == null) {
            if (headersLength == 0) {
                h = Headers.EMPTY;
            } else {
                byte[] block = new byte[headersLength];
                input.getBytes(headersAt, block);
                // Forwarded byte for byte (status line, spacing, empty blocks), as nats-server does.
                h = NatsHeaderBlock.wrap(block);
            }
            headers = h;
        }
        return h;
    }

    @Override
    public Object payload() {
        byte[] p = payload;
        if (p == null) {
            p = new byte[payloadLength];
            input.getBytes(payloadAt, p);
            payload = p;
        }
        return p;
    }

    @Override
    public int priority() {
        return headersLength == 0 ? DEFAULT_PRIORITY : Message.priorityOf(headers());
    }

    @Override
    public long origin() {
        return origin;
    }

    @Override
    public Message copy() {
        Message c = copy;
        if (c == null) {
            c = copy = Message.of(subject, replyTo, headers(), payload(), origin);
        }
        return c;
    }

    @Override
    public String toString() {
        return "WireMessage[" + subject + ", " + headersLength + " + " + payloadLength + " bytes]";
    }
}
