package io.ringbus.federation.internal;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.ringbus.core.StorageException;
import io.ringbus.core.StreamConfig;

import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * Makes a JetStream stream match a {@link StreamConfig}: creates it when missing, updates its
 * limits when they differ, refuses one that stores other subjects.
 *
 * <p><b>Mapping.</b> File storage, discard old; {@code subjects} is the stream's one subject;
 * {@code maxAge null} is JetStream's 0 (for ever); {@code -1} limits are JetStream's -1;
 * {@link StreamConfig.Retention#WORK_QUEUE} is the work-queue retention policy. The duplicate
 * window is clamped to JetStream's rules: at least {@value #MIN_DUPLICATE_WINDOW_MILLIS} ms (the
 * server's minimum: a window of 0 cannot turn de-duplication off) and at most {@code maxAge}.
 *
 * <p>Threading: static methods without state; the server serializes concurrent declarations.
 */
public final class StreamDeclaration {
    /** JetStream's smallest duplicate window. */
    public static final long MIN_DUPLICATE_WINDOW_MILLIS = 100;
    /** JetStream's API error code: stream not found. */
    static final int STREAM_NOT_FOUND = 10059;
    /** JetStream's API error code: a stream of that name exists with another configuration. */
    static final int STREAM_NAME_IN_USE = 10058;

    private StreamDeclaration() {
    }

    /**
     * Creates or updates the stream.
     *
     * @param management the JetStream API
     * @param config     the stream wanted
     * @return the stream's configuration on the server
     * @throws IllegalArgumentException naming both patterns when the stream exists and stores other subjects
     * @throws StorageException         when the server refuses or does not answer
     */
    public static StreamConfiguration declare(JetStreamManagement management, StreamConfig config) {
        try {
            StreamInfo existing = lookUp(management, config.name());
            if (existing == null) {
                try {
                    return management.addStream(build(StreamConfiguration.builder(), config)).getConfiguration();
                } catch (JetStreamApiException e) {
                    if (e.getApiErrorCode() != STREAM_NAME_IN_USE) {
                        throw e;
                    }
                    // Created by another process since the look-up: check and update that one.
                    existing = lookUp(management, config.name());
                    if (existing == null) {
                        throw e;
                    }
                }
            }
            StreamConfiguration current = existing.getConfiguration();
            checkSubjects(config, current.getSubjects());
            if (sameLimits(current, config)) {
                return current;
            }
            return management.updateStream(build(StreamConfiguration.builder(current), config)).getConfiguration();
        } catch (JetStreamApiException | IOException e) {
            throw new StorageException("JetStream refused stream '" + config.name() + "' (" + config.subjects()
                    + "): " + e.getMessage(), e);
        }
    }

    private static StreamInfo lookUp(JetStreamManagement management, String name)
            throws IOException, JetStreamApiException {
        try {
            return management.getStreamInfo(name);
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    /**
     * @param config   the stream wanted
     * @param subjects the subjects the server's stream of that name stores
     * @throws IllegalArgumentException naming both when they are not exactly {@code config.subjects()}
     */
    public static void checkSubjects(StreamConfig config, List<String> subjects) {
        if (!new HashSet<>(config.subjects()).equals(new HashSet<>(subjects))) {
            throw new IllegalArgumentException("stream '" + config.name() + "' stores '" + text(subjects) + "', not '"
                    + text(config.subjects()) + "'");
        }
    }

    private static String text(List<String> subjects) {
        return subjects.size() == 1 ? subjects.getFirst() : String.valueOf(subjects);
    }

    private static StreamConfiguration build(StreamConfiguration.Builder builder, StreamConfig config) {
        return builder.name(config.name()).subjects(config.subjects()).storageType(StorageType.File)
                .discardPolicy(DiscardPolicy.Old).retentionPolicy(retention(config))
                .maxAge(maxAge(config)).maxBytes(config.maxBytes()).maxMessages(config.maxMessages())
                .maxMessagesPerSubject(config.maxMessagesPerSubject()).duplicateWindow(duplicateWindow(config))
                .replicas(config.replicas()).build();
    }

    private static boolean sameLimits(StreamConfiguration current, StreamConfig config) {
        return Objects.equals(current.getMaxAge(), maxAge(config)) && current.getMaxBytes() == config.maxBytes()
                && current.getMaxMsgs() == config.maxMessages()
                && current.getMaxMsgsPerSubject() == config.maxMessagesPerSubject()
                && Objects.equals(current.getDuplicateWindow(), duplicateWindow(config))
                && current.getReplicas() == config.replicas() && current.getRetentionPolicy() == retention(config);
    }

    private static Duration maxAge(StreamConfig config) {
        return config.maxAge() == null ? Duration.ZERO : config.maxAge();
    }

    private static RetentionPolicy retention(StreamConfig config) {
        return config.retention() == StreamConfig.Retention.WORK_QUEUE ? RetentionPolicy.WorkQueue
                : RetentionPolicy.Limits;
    }

    /**
     * @param config the stream
     * @return its duplicate window as JetStream takes it: at least {@value #MIN_DUPLICATE_WINDOW_MILLIS}
     *         ms, at most {@code maxAge}
     */
    public static Duration duplicateWindow(StreamConfig config) {
        Duration window = config.duplicateWindow();
        if (config.maxAge() != null && window.compareTo(config.maxAge()) > 0) {
            window = config.maxAge();
        }
        Duration min = Duration.ofMillis(MIN_DUPLICATE_WINDOW_MILLIS);
        return window.compareTo(min) < 0 ? min : window;
    }
}
