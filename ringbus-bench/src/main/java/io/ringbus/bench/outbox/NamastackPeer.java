package io.ringbus.bench.outbox;

import io.namastack.outbox.Outbox;
import io.namastack.outbox.OutboxProcessingScheduler;
import io.namastack.outbox.handler.OutboxRecordMetadata;
import io.namastack.outbox.handler.OutboxTypedHandler;
import io.ringbus.core.Headers;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * namastack-outbox 1.6.0 as its docs set it up, as a contender: the JDBC starter in a minimal
 * Spring Boot 4.0.6 application (auto-configuration, a {@code spring.datasource} on the run's
 * schema, the starter's schema initialization creating {@code outbox_record} and its tables
 * there), a producer's event scheduled with {@link Outbox#schedule(Object, String)} keyed by the
 * event's key inside a {@link TransactionTemplate} transaction, and an {@link OutboxTypedHandler}
 * that delivers to the sink. Fixed polling every {@value #POLL_INTERVAL_MILLIS} ms of
 * {@value #BATCH_KEYS} record keys a cycle, processed on the starter's executor (core
 * {@value #CORE_THREADS}, max {@value #MAX_THREADS} threads); records of a key are processed in
 * order, one at a time, stopping at a failure; completed records are deleted.
 *
 * <p>Rows have UUIDs, so the log gets the event's sequence as its id: a key's events are
 * created in sequence order when one thread writes the key (the drain's fill), and within
 * microseconds of it when producers race.
 *
 * <p>The context starts at construction with its polling stopped, so a drain's backlog waits
 * until {@link #start}.
 */
final class NamastackPeer implements AutoCloseable {
    /** {@code namastack.outbox.polling.fixed.interval} (default 2 s). */
    static final int POLL_INTERVAL_MILLIS = 50;
    /** {@code namastack.outbox.polling.batch-size}: record keys per cycle (default 10). */
    static final int BATCH_KEYS = 100;
    /** {@code namastack.outbox.processing.executor-core-pool-size} (the default). */
    static final int CORE_THREADS = 4;
    /** {@code namastack.outbox.processing.executor-max-pool-size} (the default). */
    static final int MAX_THREADS = 8;
    /** Connections: 8 producers + {@value #MAX_THREADS} processing threads + spares. */
    private static final int POOL_SIZE = 20;

    private final ConfigurableApplicationContext context;
    private final Outbox outbox;
    private final TransactionTemplate transactions;
    private final JdbcTemplate jdbc;
    private final OutboxProcessingScheduler scheduler;
    private final SinkHandler handler;

    /**
     * Starts the application on {@code schema}; its schema initialization creates the tables.
     *
     * @param pgUrl  a {@code jdbc:postgresql:} URL with the user
     * @param schema the run's schema
     */
    NamastackPeer(String pgUrl, String schema) {
        // Spring Boot would otherwise reconfigure java.util.logging; the bench logs through slf4j-simple.
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", pgUrl + (pgUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema);
        properties.put("spring.datasource.hikari.maximum-pool-size", POOL_SIZE);
        properties.put("spring.datasource.hikari.pool-name", "namastack-" + schema);
        properties.put("namastack.outbox.polling.trigger", "fixed");
        properties.put("namastack.outbox.polling.fixed.interval", POLL_INTERVAL_MILLIS + "ms");
        properties.put("namastack.outbox.polling.batch-size", BATCH_KEYS);
        properties.put("namastack.outbox.processing.executor-core-pool-size", CORE_THREADS);
        properties.put("namastack.outbox.processing.executor-max-pool-size", MAX_THREADS);
        properties.put("namastack.outbox.processing.stop-on-first-failure", true);
        properties.put("namastack.outbox.processing.delete-completed-records", true);
        properties.put("namastack.outbox.multicaster.enabled", false);
        context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
                .bannerMode(org.springframework.boot.Banner.Mode.OFF).logStartupInfo(false).properties(properties)
                .run();
        scheduler = context.getBean(OutboxProcessingScheduler.class);
        scheduler.stop();
        outbox = context.getBean(Outbox.class);
        transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        jdbc = context.getBean(JdbcTemplate.class);
        handler = context.getBean(SinkHandler.class);
    }

    /** @return producer sessions: each {@link Appender.Session#commit} is one {@code TransactionTemplate} run */
    Appender appender() {
        return () -> new Appender.Session() {
            @Override
            public void commit(int[] sequences, int count, boolean keyed, DeliveryLog log) {
                transactions.executeWithoutResult(status -> {
                    for (int i = 0; i < count; i++) {
                        int seq = sequences[i];
                        Event event = new Event(seq, EventPayload.encode(seq));
                        if (keyed) {
                            outbox.schedule(event, EventPayload.key(seq));
                        } else {
                            outbox.schedule(event);
                        }
                        log.appended(seq, seq);
                    }
                });
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * Starts polling.
     *
     * @param destination where the handler delivers
     * @return the running poller
     */
    PeerRelay start(OutboxSink destination) {
        if (!handler.sink.compareAndSet(null, destination)) {
            throw new IllegalStateException("namastack peer already started");
        }
        scheduler.start();
        return new PeerRelay() {
            @Override
            public long batches() {
                return -1; // the library counts no polls
            }

            @Override
            public String failures() {
                Long failed = jdbc.queryForObject("SELECT count(*) FROM outbox_record WHERE failure_count > 0", Long.class);
                long errors = handler.failures.get();
                return errors == 0 && (failed == null || failed == 0) ? null
                        : "handler failures=" + errors + ", records that failed an attempt=" + failed + ", last: "
                                + handler.lastFailure.get();
            }

            @Override
            public long pending() {
                Long pending = jdbc.queryForObject("SELECT count(*) FROM outbox_record WHERE status <> 'COMPLETED'",
                        Long.class);
                return pending == null ? 0 : pending;
            }

            @Override
            public void close() {
                scheduler.stop();
                handler.sink.set(null);
            }
        };
    }

    /** Closes the application (its pool, scheduler and executor). */
    @Override
    public void close() {
        context.close();
    }

    /** @return the settings line of the report header */
    static String settings() {
        return "namastack-outbox 1.6.0 (Spring Boot 4.0.6, JDBC starter): fixed polling every " + POLL_INTERVAL_MILLIS
                + " ms, batch-size " + BATCH_KEYS + " keys, executor " + CORE_THREADS + "-" + MAX_THREADS
                + " threads, per-key order by record key (stop-on-first-failure), completed records deleted";
    }

    /**
     * The scheduled payload, serialized by the starter's Jackson serializer.
     *
     * @param sequence the event's sequence number
     * @param payload  its {@value EventPayload#BYTES} B payload
     */
    public record Event(int sequence, byte[] payload) {
    }

    /** The application: auto-configuration plus the handler. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
        @Bean
        SinkHandler sinkHandler() {
            return new SinkHandler();
        }
    }

    /** Delivers each record to the started sink and waits for it, as the relays do. */
    static final class SinkHandler implements OutboxTypedHandler<Event> {
        private final AtomicReference<OutboxSink> sink = new AtomicReference<>();
        private final AtomicLong failures = new AtomicLong();
        private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();

        @Override
        public void handle(Event event, OutboxRecordMetadata metadata) {
            OutboxSink target = sink.get();
            try {
                if (target == null) {
                    throw new IllegalStateException("namastack peer stopped: sequence=" + event.sequence());
                }
                target.deliver(new OutboxEvent(event.sequence(), Integer.toString(event.sequence()), EventPayload.SUBJECT,
                        metadata.getKey(), event.payload(), Headers.EMPTY, 0, metadata.getCreatedAt()))
                        .toCompletableFuture().join();
            } catch (RuntimeException e) {
                failures.incrementAndGet();
                lastFailure.set(e);
                throw e;
            }
        }

    }
}
