package io.ringbus.server;

import io.ringbus.core.Subject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one configured user or token may publish and subscribe to, as nats-server's
 * {@code permissions}: allow and deny lists of subject patterns, and {@code allow_responses}.
 *
 * <p>Rules, as nats-server applies them:
 * <ul>
 *   <li>No allow list: everything is allowed (but what a deny list names). An allow list (even an
 *       empty one): only what it names. A deny entry wins over an allow entry.</li>
 *   <li>A subscription pattern is matched token by token against the entries, its wildcards taken
 *       as literal tokens: allow {@code orders.>} permits {@code SUB orders.*}; allow
 *       {@code orders.a} does not permit {@code SUB orders.*}.</li>
 *   <li>A subscribe entry may name a queue group after a space, {@code "jobs.* workers"}: a queue
 *       subscription is then matched against the group too (the group may be a pattern).</li>
 *   <li>A wildcard subscription that overlaps a subscribe deny entry is made, but never delivers a
 *       subject that entry denies (ringbus filters every overlap, where nats-server filters only a
 *       deny entry that lies wholly within the subscription).</li>
 *   <li>{@link Responses allow_responses}: the client may publish to the reply subject of a
 *       message delivered to it, a limited number of times within a limited time, even where the
 *       publish lists do not allow it. With no publish allow list, it turns on an empty one (only
 *       responses may be published), as in nats-server.</li>
 * </ul>
 * Permissions never grant more than the scope of the user or token: the broker's scope check
 * applies as well, and refuses with the same error.
 *
 * <p>Immutable; safe to share between threads. Lists are checked when built.
 */
public final class Permissions {
    private final List<String> publishAllow;
    private final List<String> publishDeny;
    private final List<String> subscribeAllow;
    private final List<String> subscribeDeny;
    private final Responses responses;

    private Permissions(Builder b) {
        this.responses = b.responses;
        List<String> pubAllow = b.publishAllow;
        if (responses != null && pubAllow == null) {
            pubAllow = List.of(); // as nats-server: allow_responses turns off the blanket publish allow
        }
        this.publishAllow = pubAllow == null ? null : List.copyOf(pubAllow);
        this.publishDeny = List.copyOf(b.publishDeny);
        this.subscribeAllow = b.subscribeAllow == null ? null : List.copyOf(b.subscribeAllow);
        this.subscribeDeny = List.copyOf(b.subscribeDeny);
    }

    /** @return a builder with no lists (everything allowed) and no {@code allow_responses} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return patterns the client may publish to; {@code null}: any subject */
    public List<String> publishAllow() {
        return publishAllow;
    }

    /** @return patterns the client may not publish to */
    public List<String> publishDeny() {
        return publishDeny;
    }

    /** @return patterns (optionally {@code "pattern queue"}) the client may subscribe to; {@code null}: any */
    public List<String> subscribeAllow() {
        return subscribeAllow;
    }

    /** @return patterns (optionally {@code "pattern queue"}) the client may not subscribe to */
    public List<String> subscribeDeny() {
        return subscribeDeny;
    }

    /** @return the response permission, {@code null} when off */
    public Responses responses() {
        return responses;
    }

    @Override
    public String toString() {
        return "Permissions[publish.allow=" + publishAllow + ", publish.deny=" + publishDeny + ", subscribe.allow="
                + subscribeAllow + ", subscribe.deny=" + subscribeDeny + ", allow_responses=" + responses + ']';
    }

    /**
     * nats-server's {@code allow_responses}: each reply subject delivered to the client may be
     * published to {@code maxMessages} times (0 or less: any number) within {@code expires}
     * ({@link Duration#ZERO}: no limit) of its delivery.
     *
     * @param maxMessages responses allowed per reply subject; 0 or less: unlimited
     * @param expires     how long after delivery a response is allowed; zero: no limit
     */
    public record Responses(int maxMessages, Duration expires) {
        /** nats-server's {@code allow_responses: true}: one response within two minutes. */
        public static final Responses DEFAULT = new Responses(1, Duration.ofMinutes(2));

        /**
         * Checks the expiry.
         *
         * @param maxMessages responses allowed per reply subject; 0 or less: unlimited
         * @param expires     how long after delivery; zero: no limit
         * @throws IllegalArgumentException when {@code expires} is negative
         */
        public Responses {
            Objects.requireNonNull(expires, "expires");
            if (expires.isNegative()) {
                throw new IllegalArgumentException("allow_responses expires must not be negative: expires=" + expires);
            }
        }
    }

    /** Builds {@link Permissions}; not thread-safe. */
    public static final class Builder {
        private List<String> publishAllow;
        private final List<String> publishDeny = new ArrayList<>();
        private List<String> subscribeAllow;
        private final List<String> subscribeDeny = new ArrayList<>();
        private Responses responses;

        private Builder() {
        }

        /**
         * Adds publish allow entries; once called, only what the entries name may be published.
         *
         * @param patterns subject patterns
         * @return this
         * @throws IllegalArgumentException naming a malformed pattern
         */
        public Builder publishAllow(String... patterns) {
            publishAllow = add(publishAllow == null ? new ArrayList<>() : publishAllow, patterns, false);
            return this;
        }

        /**
         * Adds publish deny entries.
         *
         * @param patterns subject patterns
         * @return this
         * @throws IllegalArgumentException naming a malformed pattern
         */
        public Builder publishDeny(String... patterns) {
            add(publishDeny, patterns, false);
            return this;
        }

        /**
         * Adds subscribe allow entries; once called, only what the entries name may be subscribed to.
         *
         * @param patterns subject patterns, each optionally followed by a space and a queue group
         * @return this
         * @throws IllegalArgumentException naming a malformed entry
         */
        public Builder subscribeAllow(String... patterns) {
            subscribeAllow = add(subscribeAllow == null ? new ArrayList<>() : subscribeAllow, patterns, true);
            return this;
        }

        /**
         * Adds subscribe deny entries.
         *
         * @param patterns subject patterns, each optionally followed by a space and a queue group
         * @return this
         * @throws IllegalArgumentException naming a malformed entry
         */
        public Builder subscribeDeny(String... patterns) {
            add(subscribeDeny, patterns, true);
            return this;
        }

        /**
         * Turns on {@code allow_responses}.
         *
         * @param responses the limits, e.g. {@link Responses#DEFAULT}; {@code null} turns it off
         * @return this
         */
        public Builder allowResponses(Responses responses) {
            this.responses = responses;
            return this;
        }

        /** @return the permissions */
        public Permissions build() {
            return new Permissions(this);
        }

        private static List<String> add(List<String> to, String[] patterns, boolean queueAllowed) {
            for (String entry : patterns) {
                String trimmed = Objects.requireNonNull(entry, "pattern").trim();
                String[] parts = trimmed.split("\\s+");
                if (parts.length > 2 || (parts.length == 2 && !queueAllowed)) {
                    throw new IllegalArgumentException((queueAllowed ? "expected <pattern> [queue]" : "expected a subject pattern")
                            + ": '" + entry + "'");
                }
                Subject.requirePattern(parts[0]);
                to.add(parts.length == 2 ? parts[0] + ' ' + parts[1] : parts[0]);
            }
            return to;
        }
    }
}
