package io.ringbus.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Bridges a Spring application event type onto a ringbus subject: an object of an annotated
 * class (or subclass) passed to {@code ApplicationEventPublisher.publishEvent} is published to
 * {@link #value()} through the {@link RingbusTemplate}, so inside a transaction it goes out after
 * the commit and never on rollback. The object itself is the payload (in-process subscribers get
 * it as is). Events of other types are not bridged.
 *
 * <p>Works for {@code ApplicationEvent} subclasses and for plain objects (which Spring wraps in a
 * {@code PayloadApplicationEvent}). A subject that is not literal fails the
 * {@code publishEvent} call with an {@link IllegalArgumentException} naming it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface RingbusSubject {

    /** @return the literal subject to publish to; {@code ${...}} placeholders are resolved */
    String value();
}
