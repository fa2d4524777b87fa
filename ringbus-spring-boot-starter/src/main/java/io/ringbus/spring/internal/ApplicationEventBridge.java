package io.ringbus.spring.internal;

import io.ringbus.spring.RingbusSubject;
import io.ringbus.spring.RingbusTemplate;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * Publishes each application event whose payload type carries {@link RingbusSubject} to that
 * subject through the template (deferred to after commit inside a transaction, as the template
 * does). Every other event is ignored. Called on the thread that publishes the event.
 */
public final class ApplicationEventBridge implements ApplicationListener<ApplicationEvent> {

    /** No subject: the type is not bridged. */
    private static final String NONE = "";

    private final Supplier<RingbusTemplate> template;
    // one annotation lookup and placeholder resolution per class, not per event
    private final ClassValue<String> subjects;

    /**
     * Creates the bridge.
     *
     * @param template     the template, fetched at the first bridged event
     * @param placeholders resolves {@code ${...}} in a subject
     */
    public ApplicationEventBridge(Supplier<RingbusTemplate> template, UnaryOperator<String> placeholders) {
        this.template = Objects.requireNonNull(template, "template");
        Objects.requireNonNull(placeholders, "placeholders");
        this.subjects = new ClassValue<>() {
            @Override
            protected String computeValue(Class<?> type) {
                MergedAnnotation<RingbusSubject> subject = MergedAnnotations
                        .from(type, SearchStrategy.TYPE_HIERARCHY).get(RingbusSubject.class);
                return subject.isPresent() ? placeholders.apply(subject.getString("value")) : NONE;
            }
        };
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        Object payload = event instanceof PayloadApplicationEvent<?> wrapped ? wrapped.getPayload() : event;
        String subject = subjects.get(payload.getClass());
        if (!subject.isEmpty()) {
            template.get().publish(subject, payload);
        }
    }

    @Override
    public boolean supportsAsyncExecution() {
        // the template's after-commit deferral needs the publishing thread's transaction
        return false;
    }
}
