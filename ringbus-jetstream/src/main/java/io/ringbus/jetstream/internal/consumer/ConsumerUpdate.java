package io.ringbus.jetstream.internal.consumer;

import java.util.Objects;

/**
 * What a create request for an existing consumer may change (nats-server 2.9.10's
 * {@code checkNewConsumerConfig}): limits, ack wait, backoff, max deliver, the filter, the
 * description, the deliver subject of a push consumer nobody is bound to; not the deliver or ack
 * policy, the start, heartbeats, flow control or max waiting.
 */
final class ConsumerUpdate {
    private ConsumerUpdate() {
    }

    /**
     * @param old    the consumer's configuration
     * @param updated the one asked for
     * @param bound  whether the old deliver subject has subscribers
     * @return why {@code updated} may not replace {@code old} (nats-server's texts), or null
     */
    static String refusal(JsConsumerConfig old, JsConsumerConfig updated, boolean bound) {
        if (!old.deliverPolicy().equals(updated.deliverPolicy())) {
            return "deliver policy can not be updated";
        }
        if (old.optStartSeq() != updated.optStartSeq()) {
            return "start sequence can not be updated";
        }
        if (!Objects.equals(old.optStartTime(), updated.optStartTime())) {
            return "start time can not be updated";
        }
        if (!old.ackPolicy().equals(updated.ackPolicy())) {
            return "ack policy can not be updated";
        }
        if (!old.replayPolicy().equals(updated.replayPolicy())) {
            return "replay policy can not be updated";
        }
        if (old.heartbeatNanos() != updated.heartbeatNanos()) {
            return "heart beats can not be updated";
        }
        if (old.flowControl() != updated.flowControl()) {
            return "flow control can not be updated";
        }
        if (old.maxWaiting() != updated.maxWaiting()) {
            return "max waiting can not be updated";
        }
        if (!Objects.equals(old.deliverSubject(), updated.deliverSubject())) {
            if (old.deliverSubject() == null) {
                return "can not update pull consumer to push based";
            }
            if (updated.deliverSubject() == null) {
                return "can not update push consumer to pull based";
            }
            if (bound) {
                return "consumer name already in use";
            }
        }
        return null;
    }

}
