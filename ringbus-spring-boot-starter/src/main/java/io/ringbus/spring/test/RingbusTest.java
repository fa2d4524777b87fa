package io.ringbus.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.autoconfigure.OverrideAutoConfiguration;
import org.springframework.boot.test.context.filter.annotation.TypeExcludeFilters;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.BootstrapWith;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * A Spring Boot test slice for ringbus, like {@code @JsonTest}: the application context holds
 * only the ringbus auto-configuration ({@link AutoConfigureRingbus}: the broker, the
 * {@link io.ringbus.spring.RingbusTemplate}, the {@link io.ringbus.spring.RingbusListener}
 * methods, the application-event bridge, the embedded server when
 * {@code ringbus.server.enabled=true}) and, of the components that the application's
 * {@code @SpringBootApplication} scans, only those with a {@code @RingbusListener} method.
 * Other auto-configuration (web server, DataSource) and other components are not loaded.
 *
 * <p>The configuration is found as {@code @SpringBootTest} finds it: the nearest
 * {@code @SpringBootConfiguration} up the test's package. Each test class shares one cached
 * context with every other test class of the same configuration.
 *
 * <p>Needs spring-boot-test, spring-boot-test-autoconfigure and JUnit Jupiter on the test
 * classpath (the starter declares them optional).
 */
// The meta-annotations name Spring's test types and this package's own bootstrapper and filter:
// Spring reads them by reflection, a test never names them, so clients need not read those modules.
@SuppressWarnings("exports")
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@BootstrapWith(RingbusTestContextBootstrapper.class)
@ExtendWith(SpringExtension.class)
@OverrideAutoConfiguration(enabled = false)
@TypeExcludeFilters(RingbusTypeExcludeFilter.class)
@AutoConfigureRingbus
public @interface RingbusTest {

    /** @return properties ({@code key=value}) added to the environment before the test runs */
    String[] properties() default {};

    /**
     * @return whether the application's default component filters apply (the
     *         {@code @RingbusListener} components are always included when they do)
     */
    boolean useDefaultFilters() default true;

    /** @return more components to include, beyond the {@code @RingbusListener} ones */
    Filter[] includeFilters() default {};

    /** @return components to exclude */
    Filter[] excludeFilters() default {};

    /** @return auto-configuration classes to leave out of the slice */
    @AliasFor(annotation = ImportAutoConfiguration.class, attribute = "exclude")
    Class<?>[] excludeAutoConfiguration() default {};
}
