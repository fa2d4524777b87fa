package io.ringbus.jetstream.internal;

/**
 * A JetStream API error as nats-server 2.9.10 writes it ({@code server/errors.json}): the HTTP-like
 * code, JetStream's own error code and the description clients show.
 *
 * @param code        the status (400, 404, 500, 503)
 * @param errCode     JetStream's code ({@code err_code})
 * @param description the text
 */
public record ApiError(int code, int errCode, String description) {
    /** 10003. */
    static final ApiError BAD_REQUEST = new ApiError(400, 10003, "bad request");
    /** 10025. */
    public static final ApiError INVALID_JSON = new ApiError(400, 10025, "invalid JSON");
    /** 10056. */
    public static final ApiError STREAM_MISMATCH = new ApiError(400, 10056, "stream name in subject does not match request");
    /** 10058. */
    static final ApiError STREAM_NAME_EXISTS = new ApiError(400, 10058,
            "stream name already in use with a different configuration");
    /** 10059. */
    public static final ApiError STREAM_NOT_FOUND = new ApiError(404, 10059, "stream not found");
    /** 10065. */
    static final ApiError SUBJECT_OVERLAP = new ApiError(400, 10065, "subjects overlap with an existing stream");
    /** 10074. */
    static final ApiError REPLICAS_NOT_SUPPORTED = new ApiError(500, 10074,
            "replicas > 1 not supported in non-clustered mode");
    /** 10133. */
    public static final ApiError REPLICAS_NEGATIVE = new ApiError(400, 10133, "replicas count cannot be negative");
    /** 10027. */
    static final ApiError MAX_STREAMS = new ApiError(400, 10027, "maximum number of streams reached");
    /** 10037. */
    static final ApiError NO_MESSAGE = new ApiError(404, 10037, "no message found");
    /** 10128. */
    static final ApiError NAME_WITH_PATH_SEPARATORS = new ApiError(400, 10128,
            "Stream name can not contain path separators");
    /** 10008: the API's queue is full (clients retry a 503). */
    public static final ApiError UNAVAILABLE = new ApiError(503, 10008, "JetStream system temporarily unavailable");

    /** JSStorageResourcesExceededErr: a stream's max_bytes would reserve more than the store's limit. */
    static final ApiError STORAGE_RESOURCES = new ApiError(500, 10047, "insufficient storage resources available");

    /** JSStreamSealedErr. */
    static final ApiError SEALED = new ApiError(400, 10109, "invalid operation on sealed stream");

    /** JSSequenceNotFoundErrF. */
    static ApiError sequenceNotFound(long sequence) {
        return new ApiError(400, 10043, "sequence " + sequence + " not found");
    }

    /** JSStreamMsgDeleteFailedF. */
    static ApiError messageDeleteFailed(String text) {
        return new ApiError(500, 10057, text);
    }

    /** JSStreamPurgeFailedF. */
    static ApiError purgeFailed(String text) {
        return new ApiError(500, 10110, text);
    }

    /** @return JSStreamInvalidConfigF (500, 10052) with {@code text} */
    static ApiError invalidConfig(String text) {
        return new ApiError(500, 10052, text);
    }

    /** @return JSStreamUpdateErrF (500, 10069) with {@code text} */
    static ApiError updateFailed(String text) {
        return new ApiError(500, 10069, text);
    }

    /** @return JSStreamGeneralErrorF (500, 10051) with {@code text} */
    static ApiError general(String text) {
        return new ApiError(500, 10051, text);
    }

    /** @return JSStreamCreateErrF (500, 10049) with {@code text} */
    static ApiError createFailed(String text) {
        return new ApiError(500, 10049, text);
    }

    /** @return JSStreamDeleteErrF (500, 10050) with {@code text} */
    static ApiError deleteFailed(String text) {
        return new ApiError(500, 10050, text);
    }

    /** Thrown where a handler must stop with this error. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ApiError error;

        Failure(ApiError error) {
            super(error.description(), null, false, false);
            this.error = error;
        }
    }

    /** @return an exception carrying this error */
    Failure failure() {
        return new Failure(this);
    }
}
