package io.ringbus.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Imports the ringbus auto-configuration into a test (part of {@link RingbusTest}; usable alone
 * in other slices). The classes are listed in
 * {@code META-INF/spring/io.ringbus.spring.test.AutoConfigureRingbus.imports}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureRingbus {
}
