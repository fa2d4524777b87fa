package io.ringbus.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code String} test parameter, or a {@code String} field of the test class, that gets
 * the running server's URL, {@code nats://127.0.0.1:<port>}, from {@link RingbusServerExtension}.
 *
 * <p>Static fields are set before {@code @BeforeAll} methods run (not with
 * {@link RingbusServerTest#perMethod()}), instance fields before each test's {@code @BeforeEach}
 * methods. A test class in a named module must open its package to {@code io.ringbus.test} for
 * field injection; parameters need nothing.
 */
@Target({ElementType.PARAMETER, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RingbusUrl {
}
