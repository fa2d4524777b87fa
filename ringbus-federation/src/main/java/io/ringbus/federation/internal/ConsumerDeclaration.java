package io.ringbus.federation.internal;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.ReplayPolicy;
import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.StartPosition;
import io.ringbus.core.StorageException;
import io.ringbus.core.StreamConfig;

import java.io.IOException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;

/**
 * Makes a durable JetStream pull consumer match a {@link ConsumerConfig}: creates it at its start
 * position when missing; else checks its filter and updates its ack wait, max deliver and max ack
 * pending when they differ (its position stays).
 *
 * <p><b>Mapping.</b> Explicit acks, instant replay, {@code filter_subject} = the filter ({@code >}
 * becomes the stream's pattern: JetStream's last-per-subject start needs a filter). Start
 * positions are JetStream's deliver policies of the same names: all, new, by start sequence, by
 * start time, last per subject.
 *
 * <p>Threading: static methods without state.
 */
public final class ConsumerDeclaration {
    /** JetStream's API error code: consumer not found. */
    static final int CONSUMER_NOT_FOUND = 10014;
    /** JetStream's API error code: the filter is not within the stream's subjects. */
    static final int FILTER_NOT_IN_STREAM = 10093;

    private ConsumerDeclaration() {
    }

    /**
     * Creates or updates the consumer.
     *
     * @param management the JetStream API
     * @param stream     the stream it reads
     * @param config     the consumer wanted
     * @throws IllegalArgumentException when it exists with another filter or as a push consumer, or
     *                                  the filter is outside the stream's subjects
     * @throws StorageException         when the server refuses or does not answer
     */
    public static void declare(JetStreamManagement management, StreamConfig stream, ConsumerConfig config) {
        String filter = filter(stream, config.filterSubject());
        try {
            ConsumerInfo existing = lookUp(management, stream.name(), config.durableName());
            if (existing == null) {
                management.addOrUpdateConsumer(stream.name(), create(config, filter));
                return;
            }
            ConsumerConfiguration current = existing.getConsumerConfiguration();
            String currentFilter = current.getFilterSubject() == null || current.getFilterSubject().isEmpty()
                    ? everything(stream) : current.getFilterSubject();
            if (!currentFilter.equals(filter)) {
                throw new IllegalArgumentException("durable consumer '" + config.durableName() + "' of stream '"
                        + stream.name() + "' filters '" + currentFilter + "', not '" + config.filterSubject() + "'");
            }
            if (current.getDeliverSubject() != null) {
                throw new IllegalArgumentException("durable consumer '" + config.durableName() + "' of stream '"
                        + stream.name() + "' is a push consumer (deliver subject '" + current.getDeliverSubject()
                        + "'); ringbus pulls");
            }
            if (!Objects.equals(current.getAckWait(), config.ackWait()) || current.getMaxDeliver() != config.maxDeliver()
                    || current.getMaxAckPending() != config.maxAckPending()) {
                management.addOrUpdateConsumer(stream.name(), ConsumerConfiguration.builder(current)
                        .ackWait(config.ackWait()).maxDeliver(config.maxDeliver())
                        .maxAckPending(config.maxAckPending()).build());
            }
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == FILTER_NOT_IN_STREAM) {
                throw new IllegalArgumentException("durable consumer '" + config.durableName() + "': filter '"
                        + config.filterSubject() + "' is outside stream '" + stream.name() + "' ("
                        + stream.subjects() + ")", e);
            }
            throw refused(stream, config, e);
        } catch (IOException e) {
            throw refused(stream, config, e);
        }
    }

    private static StorageException refused(StreamConfig stream, ConsumerConfig config, Exception e) {
        return new StorageException("JetStream refused durable consumer '" + config.durableName() + "' of stream '"
                + stream.name() + "': " + e.getMessage(), e);
    }

    private static ConsumerInfo lookUp(JetStreamManagement management, String stream, String name)
            throws IOException, JetStreamApiException {
        try {
            return management.getConsumerInfo(stream, name);
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == CONSUMER_NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    private static String filter(StreamConfig stream, String filterSubject) {
        return filterSubject.equals(">") ? everything(stream) : filterSubject;
    }

    /** @return the filter of a consumer of all the stream: its pattern, or none ("") when it has several */
    private static String everything(StreamConfig stream) {
        return stream.subjects().size() == 1 ? stream.subjects().getFirst() : "";
    }

    private static ConsumerConfiguration create(ConsumerConfig config, String filter) {
        ConsumerConfiguration.Builder builder = ConsumerConfiguration.builder().durable(config.durableName())
                .ackPolicy(AckPolicy.Explicit).replayPolicy(ReplayPolicy.Instant).filterSubject(filter)
                .ackWait(config.ackWait()).maxDeliver(config.maxDeliver()).maxAckPending(config.maxAckPending());
        StartPosition start = config.start();
        switch (start.kind()) {
            case ALL -> builder.deliverPolicy(DeliverPolicy.All);
            case NEW -> builder.deliverPolicy(DeliverPolicy.New);
            case SEQUENCE -> builder.deliverPolicy(DeliverPolicy.ByStartSequence).startSequence(start.sequence());
            case TIME -> builder.deliverPolicy(DeliverPolicy.ByStartTime)
                    .startTime(ZonedDateTime.ofInstant(start.time(), ZoneOffset.UTC));
            case LAST_PER_SUBJECT -> builder.deliverPolicy(DeliverPolicy.LastPerSubject);
            default -> throw new IllegalArgumentException("unknown start position: " + start);
        }
        return builder.build();
    }
}
