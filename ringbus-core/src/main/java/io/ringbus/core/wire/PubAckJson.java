package io.ringbus.core.wire;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.ringbus.core.PublishAck;

/**
 * JetStream's PubAck, the reply to a publish a stream stored, and its error form, as nats-server
 * writes them and jnats and nats.go parse them:
 *
 * <pre>
 * {"stream":"ORDERS","seq":7}                      ; stored
 * {"stream":"ORDERS","seq":7,"duplicate":true}     ; a duplicate of the message stored as 7
 * {"error":{"code":503,"err_code":10077,"description":"..."}}
 * {"error":{"code":400,"err_code":10097,"description":"..."},"stream":"ORDERS","seq":0}
 * </pre>
 *
 * <p>Strings are escaped by jackson-core as JSON requires: quotes, backslashes and every control
 * character.
 *
 * <p>Threading: static and stateless.
 */
public final class PubAckJson {
    private PubAckJson() {
    }

    /**
     * @param ack a stored publish's acknowledgement
     * @return its PubAck
     */
    public static String ack(PublishAck ack) {
        StringBuilder json = new StringBuilder(48).append("{\"stream\":\"");
        escape(json, ack.stream());
        json.append("\",\"seq\":").append(ack.sequence());
        if (ack.duplicate()) {
            json.append(",\"duplicate\":true");
        }
        return json.append('}').toString();
    }

    /**
     * @param code        the status, as HTTP's ({@code 503}, {@code 400})
     * @param errCode     JetStream's error code ({@code 10077}: JSStreamStoreFailedF)
     * @param description what went wrong
     * @param stream      the stream that refused the message, or {@code null} when none did: given,
     *                    it is written with sequence 0, as nats-server's JSPubAckResponse
     * @return the error PubAck
     */
    public static String error(int code, int errCode, String description, String stream) {
        StringBuilder json = new StringBuilder(description.length() + 64)
                .append("{\"error\":{\"code\":").append(code)
                .append(",\"err_code\":").append(errCode)
                .append(",\"description\":\"");
        escape(json, description);
        json.append("\"}");
        if (stream != null) {
            json.append(",\"stream\":\"");
            escape(json, stream);
            json.append("\",\"seq\":0");
        }
        return json.append('}').toString();
    }

    private static void escape(StringBuilder json, String text) {
        JsonStringEncoder.getInstance().quoteAsString(text, json);
    }
}
