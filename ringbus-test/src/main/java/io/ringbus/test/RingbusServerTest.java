package io.ringbus.test;

import io.ringbus.core.Scope;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a ringbus-server, a NATS server, inside the test JVM for the annotated test class: started
 * on a free loopback port before the class's first test ({@code @BeforeAll} methods included),
 * closed after its last ({@code @AfterAll} methods included), or one per test with
 * {@link #perMethod()}.
 *
 * <pre>{@code
 * @RingbusServerTest
 * class OrdersTest {
 *     @Test
 *     void roundTrip(@RingbusUrl String url) throws Exception {
 *         try (Connection nats = Nats.connect(url)) { ... }
 *     }
 * }
 * }</pre>
 *
 * <p>Tests get the server as a {@link RingbusServerHandle} parameter, or its URL as a
 * {@link RingbusUrl @RingbusUrl} {@code String} parameter or field. Every subject is
 * {@link Scope#PUBLIC}, so that, as with a plain nats-server, every client may use every subject;
 * the monitoring port is off. {@code @Nested} classes share the enclosing class's server. For
 * settings the annotation does not offer, register a {@link RingbusServerExtension} built with
 * {@link RingbusServerExtension#builder()} instead.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RingbusServerExtension.class)
public @interface RingbusServerTest {
    /** @return a token clients must present ({@code nats://token@host:port}); empty: none */
    String token() default "";

    /** @return a user name clients must present, with {@link #password()}; empty: none */
    String user() default "";

    /** @return the password of {@link #user()} */
    String password() default "";

    /**
     * @return the scope network clients get: every client's when no credentials are configured,
     *         else the token's and the user's. Subjects are PUBLIC unless a test registers others
     *         with {@link io.ringbus.core.Broker#registerSubject}.
     */
    Scope clientScope() default Scope.PUBLIC;

    /** @return the largest payload the server accepts, in bytes; default 1 MiB, as nats-server */
    int maxPayload() default 1 << 20;

    /** @return whether each test method gets a fresh server (and broker) of its own */
    boolean perMethod() default false;

    /** @return whether to serve HTTP monitoring ({@code /varz}, ...) on a free loopback port */
    boolean monitor() default false;
}
