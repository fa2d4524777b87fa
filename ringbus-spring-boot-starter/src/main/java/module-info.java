/**
 * ringbus-spring-boot-starter: Spring Boot 4.1 auto-configuration for ringbus.
 *
 * <p>Only {@code io.ringbus.spring} and {@code io.ringbus.spring.test} (the test slice) are
 * exported; {@code io.ringbus.spring.internal} is implementation. The module is open: Spring
 * reads its beans and configuration classes by reflection.
 */
// Spring Boot 4.1, Spring Framework 7 and Micrometer have no module descriptors: their
// Automatic-Module-Names are used. The API extends Spring types, hence the transitive requirements.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
open module io.ringbus.spring {
    requires transitive io.ringbus.core;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.context;
    requires transitive spring.beans;
    requires spring.core;
    requires spring.aop;
    requires org.slf4j;
    requires tools.jackson.databind; // JSON payloads: a dependency, not optional
    // Optional (Maven <optional>): each is used only when the application has it
    requires static transitive io.ringbus.server;
    requires static spring.tx;
    requires static spring.jdbc;
    requires static transitive io.ringbus.outbox;
    requires static micrometer.core;
    requires static transitive spring.boot.health;
    requires static transitive spring.boot.actuator;
    // @RingbusTest, the test slice: on the application's test classpath only
    requires static spring.test;
    requires static spring.boot.test;
    requires static spring.boot.test.autoconfigure;
    requires static org.junit.jupiter.api;

    exports io.ringbus.spring;
    exports io.ringbus.spring.test;
}
