package io.ringbus.spring;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.OverflowPolicy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as a subscriber of the auto-configured broker. The subscription is made
 * when the application context has started (after every singleton exists) and ends after the
 * broker has drained on shutdown, so nothing the broker accepted for it is lost.
 *
 * <p>Parameters, in any order: a {@link io.ringbus.core.Message} (the message; valid only during
 * the call in {@link ExecutionMode#EVENT_LOOP} mode: keep {@code message.copy()}), a
 * {@link io.ringbus.core.Headers} (its headers), and at most one other parameter, the payload:
 * an in-process object of that type is passed as is; a {@code byte[]} or {@code String} payload
 * (what network clients send) is passed as is to a {@code byte[]} / {@code String} parameter and
 * otherwise read as JSON by the application's Jackson {@code JsonMapper}. A non-void method
 * answers a request: its non-null return value is published to the message's reply subject.
 *
 * <p>An exception (including a payload that cannot be converted) goes to the
 * {@link RingbusListenerErrorHandler} bean; the subscription keeps running.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RingbusListener {

    /**
     * @return the subject pattern ({@code *} one token, {@code >} the rest); {@code ${...}}
     *         placeholders are resolved
     */
    String subject();

    /**
     * @return where the method runs; WORKER by default because application code may block
     *         (an event loop is shared by many subscriptions and warned about after 2 s)
     */
    ExecutionMode mode() default ExecutionMode.WORKER;

    /** @return a queue group name: each message goes to one member of the group; empty for none */
    String queueGroup() default "";

    /** @return one call at a time in publish order ({@code true}), or up to {@link #maxConcurrency()} */
    boolean ordered() default true;

    /** @return concurrent calls when not {@link #ordered()}; 0 keeps the broker's default */
    int maxConcurrency() default 0;

    /** @return the WORKER/VIRTUAL buffer size in messages; 0 keeps the broker's default */
    int bufferSize() default 0;

    /** @return what a full buffer does; BLOCK loses nothing */
    OverflowPolicy overflow() default OverflowPolicy.BLOCK;

    /**
     * @return the watchdog limit of one call as a duration ({@code 500ms}, {@code 5s}); empty keeps
     *         the broker's limit for the mode
     */
    String maxExecuteTime() default "";

    /**
     * Applies each message once through an inbox table (ringbus-outbox's {@code Inbox}, with
     * spring-jdbc, the application's {@code DataSource} and a {@code PlatformTransactionManager}):
     * the method runs in a transaction that also records the message's event id
     * ({@code Ringbus-Event-Id}), so whatever it writes through that data source (a
     * {@code JdbcTemplate}) commits once per event; a redelivered event does not call it, nor does a
     * message without an event id (recorded in {@code <table>_dead} with the reason). The method's
     * exception rolls back its writes and the id, and goes to the error handler.
     *
     * @return the inbox table, {@code table} or {@code schema.table} (created at start if missing);
     *         empty for none (the default). One table per listener: two listeners sharing one would
     *         see each other's ids as duplicates
     */
    String inbox() default "";
}
