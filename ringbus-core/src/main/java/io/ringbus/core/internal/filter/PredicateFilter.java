package io.ringbus.core.internal.filter;

import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;

import java.util.function.Predicate;

/**
 * A filter that is an in-process {@link Predicate}: as fast and as safe as the predicate.
 *
 * @param predicate the predicate; must not block and must be safe from several threads at once
 */
public record PredicateFilter(Predicate<Message> predicate) implements MessageFilter {

    /**
     * @param predicate the predicate
     * @throws IllegalArgumentException when it is {@code null}
     */
    public PredicateFilter {
        if (predicate == null) {
            throw new IllegalArgumentException("a filter's predicate must not be null");
        }
    }

    @Override
    public boolean test(Message message) {
        return predicate.test(message);
    }

    @Override
    public String text() {
        return "predicate: " + predicate;
    }
}
