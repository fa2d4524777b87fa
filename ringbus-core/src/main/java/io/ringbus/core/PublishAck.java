package io.ringbus.core;

/**
 * The store's acknowledgement of one durable publish: the record is durable under the store's
 * policy. The same fields as JetStream's PubAck.
 *
 * @param stream    the stream that stored it
 * @param sequence  its sequence in the stream, from 1
 * @param duplicate {@code true} when a message with the same id was stored within the stream's
 *                  duplicate window: nothing new was stored and {@code sequence} is the earlier one's
 */
public record PublishAck(String stream, long sequence, boolean duplicate) {
    /**
     * @return JetStream's PubAck JSON for this acknowledgement, as jnats and nats.go parse it:
     *         {@code {"stream":"ORDERS","seq":7}} (with {@code "duplicate":true} when it is one)
     */
    public String toJson() {
        StringBuilder json = new StringBuilder(48).append("{\"stream\":\"");
        for (int i = 0; i < stream.length(); i++) {
            char c = stream.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\');
            }
            json.append(c);
        }
        json.append("\",\"seq\":").append(sequence);
        if (duplicate) {
            json.append(",\"duplicate\":true");
        }
        return json.append('}').toString();
    }
}
