package io.ringbus.jetstream.internal.consumer;

import io.ringbus.jetstream.internal.ApiError;

/**
 * JetStream's consumer errors as nats-server 2.9.10 writes them ({@code server/errors.json}; those
 * the stream API answers too are {@link ApiError}'s), and the exception a request handler stops with.
 */
final class ConsumerError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final ApiError NOT_FOUND = new ApiError(404, 10014, "consumer not found");
    static final ApiError MAX_CONSUMERS = new ApiError(400, 10026, "maximum consumers limit reached");
    static final ApiError NAME_EXISTS = new ApiError(400, 10013, "consumer name already in use");
    static final ApiError EPHEMERAL_WITH_DURABLE = new ApiError(400, 10020,
            "consumer expected to be ephemeral but a durable name was set in request");
    static final ApiError DURABLE_NOT_IN_SUBJECT = new ApiError(400, 10016,
            "consumer expected to be durable but no durable name set in subject");
    static final ApiError DURABLE_NOT_SET = new ApiError(400, 10018,
            "consumer expected to be durable but a durable name was not set");
    static final ApiError DURABLE_MISMATCH = new ApiError(400, 10017,
            "consumer name in subject does not match durable name in request");
    static final ApiError DELIVER_WILDCARDS = new ApiError(400, 10079, "consumer deliver subject has wildcards");
    static final ApiError PUSH_MAX_WAITING = new ApiError(400, 10080, "consumer in push mode can not set max waiting");
    static final ApiError DELIVER_CYCLE = new ApiError(400, 10081, "consumer deliver subject forms a cycle");
    static final ApiError MAX_PENDING_NEEDS_ACK = new ApiError(400, 10082,
            "consumer requires ack policy for max ack pending");
    static final ApiError SMALL_HEARTBEAT = new ApiError(400, 10083, "consumer idle heartbeat needs to be >= 100ms");
    static final ApiError PULL_REQUIRES_ACK = new ApiError(400, 10084, "consumer in pull mode requires ack policy");
    static final ApiError MAX_WAITING_NEGATIVE = new ApiError(400, 10087, "consumer max waiting needs to be positive");
    static final ApiError HB_REQUIRES_PUSH = new ApiError(400, 10088,
            "consumer idle heartbeat requires a push based consumer");
    static final ApiError FC_REQUIRES_PUSH = new ApiError(400, 10089,
            "consumer flow control requires a push based consumer");
    static final ApiError FILTER_NOT_SUBSET = new ApiError(400, 10093,
            "consumer filter subject is not a valid subset of the interest subjects");
    static final ApiError WQ_REQUIRES_EXPLICIT_ACK = new ApiError(400, 10098, "workqueue stream requires explicit ack");
    static final ApiError WQ_MULTIPLE_UNFILTERED = new ApiError(400, 10099,
            "multiple non-filtered consumers not allowed on workqueue stream");
    static final ApiError WQ_NOT_UNIQUE = new ApiError(400, 10100, "filtered consumer not unique on workqueue stream");
    static final ApiError WQ_NOT_DELIVER_ALL = new ApiError(400, 10101, "consumer must be deliver all on workqueue stream");
    static final ApiError BAD_DURABLE_NAME = new ApiError(400, 10103, "durable name can not contain '.', '*', '>'");
    static final ApiError FC_NEEDS_HEARTBEATS = new ApiError(400, 10108,
            "consumer with flow control also needs heartbeats");
    static final ApiError INVALID_DELIVER_SUBJECT = new ApiError(400, 10112, "invalid push consumer deliver subject");
    static final ApiError MAX_BATCH_NEGATIVE = new ApiError(400, 10114, "consumer max request batch needs to be > 0");
    static final ApiError MAX_EXPIRES_TOO_SMALL = new ApiError(400, 10115,
            "consumer max request expires needs to be >= 1ms");
    static final ApiError MAX_DELIVER_BACKOFF = new ApiError(400, 10116,
            "max deliver is required to be > length of backoff values");
    static final ApiError REPLICAS_EXCEED_STREAM = new ApiError(400, 10126,
            "consumer config replica count exceeds parent stream");
    static final ApiError NAME_WITH_PATH_SEPARATORS = new ApiError(400, 10127,
            "Consumer name can not contain path separators");
    static final ApiError FILTER_MISMATCH = new ApiError(400, 10131,
            "Consumer create request did not match filtered subject from create subject");
    static final ApiError DURABLE_NAME_MISMATCH = new ApiError(400, 10132,
            "Consumer Durable and Name have to be equal if both are provided");

    final transient ApiError error;

    ConsumerError(ApiError error) {
        super(error.description(), null, false, false);
        this.error = error;
    }

    /** @return JSConsumerCreateErrF (500, 10012) with {@code text} */
    static ConsumerError create(String text) {
        return new ConsumerError(new ApiError(500, 10012, text));
    }

    /** @return JSConsumerInvalidPolicyErrF (400, 10094) with {@code text} */
    static ConsumerError policy(String text) {
        return new ConsumerError(new ApiError(400, 10094, text));
    }

    /** @return JSConsumerDescriptionTooLongErrF */
    static ConsumerError descriptionTooLong(int max) {
        return new ConsumerError(new ApiError(400, 10107,
                "consumer description is too long, maximum allowed is " + max));
    }

    /** @return JSConsumerNameTooLongErrF */
    static ConsumerError nameTooLong(int max) {
        return new ConsumerError(new ApiError(400, 10102, "consumer name is too long, maximum allowed is " + max));
    }

    /** @return an exception carrying {@code error} */
    static ConsumerError of(ApiError error) {
        return new ConsumerError(error);
    }
}
