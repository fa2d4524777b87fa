package io.ringbus.jetstream.internal.consumer;

import io.ringbus.jetstream.internal.ApiError;

import io.ringbus.core.StoredStream;
import io.ringbus.core.Subject;

/**
 * nats-server 2.9.10's {@code checkConsumerCfg}, in its order, after its defaults; then what ringbus
 * adds: its bounds ({@link Consumers#MAX_ACK_PENDING}, {@link Consumers#MAX_WAITING}), the options
 * it does not honour (refused, naming them).
 */
final class ConsumerChecks {
    private static final long MIN_HEARTBEAT_NANOS = 100_000_000L;

    private ConsumerChecks() {
    }

    /** @return {@code config}, which has its defaults @throws ConsumerError naming what is wrong */
    static JsConsumerConfig check(JsConsumerConfig config, StoredStream stream) {
        JsConsumerConfig c = config;
        if (c.replicas() > 1) {
            throw ConsumerError.of(ConsumerError.REPLICAS_EXCEED_STREAM);
        }
        if (c.replicas() < 0) {
            throw ConsumerError.of(ApiError.REPLICAS_NEGATIVE);
        }
        if (!c.backoffNanos().isEmpty() && c.maxDeliver() <= c.backoffNanos().size()) {
            throw ConsumerError.of(ConsumerError.MAX_DELIVER_BACKOFF);
        }
        if (c.description() != null && c.description().length() > JsConsumerConfig.MAX_DESCRIPTION) {
            throw ConsumerError.descriptionTooLong(JsConsumerConfig.MAX_DESCRIPTION);
        }
        if (c.push()) {
            String deliver = c.deliverSubject();
            if (deliver.contains("*") || deliver.contains(">")) {
                throw ConsumerError.of(ConsumerError.DELIVER_WILDCARDS);
            }
            if (!validSubject(deliver)) {
                throw ConsumerError.of(ConsumerError.INVALID_DELIVER_SUBJECT);
            }
            if (stream.config().overlaps(deliver)) {
                throw ConsumerError.of(ConsumerError.DELIVER_CYCLE);
            }
            if (c.maxWaiting() != 0) {
                throw ConsumerError.of(ConsumerError.PUSH_MAX_WAITING);
            }
            if (c.maxAckPending() > 0 && c.ackPolicy().equals("none")) {
                throw ConsumerError.of(ConsumerError.MAX_PENDING_NEEDS_ACK);
            }
            if (c.heartbeatNanos() > 0 && c.heartbeatNanos() < MIN_HEARTBEAT_NANOS) {
                throw ConsumerError.of(ConsumerError.SMALL_HEARTBEAT);
            }
        } else {
            if (c.ackPolicy().equals("none") && Consumers.workQueue(stream)) {
                throw ConsumerError.of(ConsumerError.PULL_REQUIRES_ACK);
            }
            if (c.maxWaiting() < 0) {
                throw ConsumerError.of(ConsumerError.MAX_WAITING_NEGATIVE);
            }
            if (c.heartbeatNanos() > 0) {
                throw ConsumerError.of(ConsumerError.HB_REQUIRES_PUSH);
            }
            if (c.flowControl()) {
                throw ConsumerError.of(ConsumerError.FC_REQUIRES_PUSH);
            }
            if (c.maxBatch() < 0) {
                throw ConsumerError.of(ConsumerError.MAX_BATCH_NEGATIVE);
            }
            if (c.maxExpiresNanos() != 0 && c.maxExpiresNanos() < 1_000_000L) {
                throw ConsumerError.of(ConsumerError.MAX_EXPIRES_TOO_SMALL);
            }
        }
        if (c.filterSubject() != null && !stream.config().overlaps(c.filterSubject())) {
            throw ConsumerError.of(ConsumerError.FILTER_NOT_SUBSET);
        }
        policy(c);
        if (c.flowControl() && c.heartbeatNanos() == 0) {
            throw ConsumerError.of(ConsumerError.FC_NEEDS_HEARTBEATS);
        }
        if (c.durable() != null && config.name() != null && !config.name().equals(c.durable())) {
            throw ConsumerError.of(ConsumerError.DURABLE_NAME_MISMATCH);
        }
        // ringbus's own bounds and what it does not do
        if (c.maxAckPending() > Consumers.MAX_ACK_PENDING) {
            throw new ConsumerError(new io.ringbus.jetstream.internal.ApiError(400, 10121,
                    "consumer max ack pending exceeds system limit of " + Consumers.MAX_ACK_PENDING));
        }
        if (c.maxWaiting() > Consumers.MAX_WAITING) {
            throw ConsumerError.create("max_waiting exceeds ringbus's limit of " + Consumers.MAX_WAITING
                    + ": max_waiting=" + c.maxWaiting());
        }
        if (c.unsupported() != null) {
            throw ConsumerError.create("not supported by ringbus yet: " + c.unsupported());
        }
        return config;
    }

    private static void policy(JsConsumerConfig c) {
        boolean seq = c.optStartSeq() > 0;
        boolean time = c.optStartTime() != null;
        switch (c.deliverPolicy()) {
            case "all", "last", "new" -> {
                if (seq) {
                    throw ConsumerError.policy(badStart(c.deliverPolicy(), "sequence"));
                }
                if (time) {
                    throw ConsumerError.policy(badStart(c.deliverPolicy(), "time"));
                }
            }
            case "last_per_subject" -> {
                if (seq) {
                    throw ConsumerError.policy(badStart("last per subject", "sequence"));
                }
                if (time) {
                    throw ConsumerError.policy(badStart("last per subject", "time"));
                }
                if (c.filterSubject() == null) {
                    throw ConsumerError.policy(notSet("last per subject", "filter subject"));
                }
            }
            case "by_start_sequence" -> {
                if (!seq) {
                    throw ConsumerError.policy(notSet("by start sequence", "start sequence"));
                }
                if (time) {
                    throw ConsumerError.policy(badStart("by start sequence", "time"));
                }
            }
            case "by_start_time" -> {
                if (!time) {
                    throw ConsumerError.policy(notSet("by start time", "start time"));
                }
                if (seq) {
                    throw ConsumerError.policy(badStart("by start time", "start sequence"));
                }
            }
            default -> throw ConsumerError.of(ApiError.INVALID_JSON);
        }
    }

    private static String badStart(String policy, String start) {
        return "consumer delivery policy is deliver " + policy + ", but optional start " + start + " is also set";
    }

    private static String notSet(String policy, String what) {
        return "consumer delivery policy is deliver " + policy + ", but optional " + what + " is not set";
    }

    private static boolean validSubject(String subject) {
        if (subject.isEmpty() || subject.startsWith(".") || subject.endsWith(".") || subject.contains("..")) {
            return false;
        }
        for (int i = 0; i < subject.length(); i++) {
            if (Character.isWhitespace(subject.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
