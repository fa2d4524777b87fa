package io.ringbus.core.internal;

import io.ringbus.core.Scope;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the messages of one literal subject go: the subject's scope and, per event loop, the
 * subscribers and queue groups it serves. Built once per subject and index snapshot, then only
 * read by publishers and event loops.
 */
final class Route {
    private static final Subscriber[] NO_SUBSCRIBERS = new Subscriber[0];

    /** Marks a slot whose payload is a {@link Fence}, not a message. */
    static final Route FENCE = new Route(Scope.ROOT, new Subscriber[0][], new QueueGroupRoute[0], 0);

    final Scope scope;
    /** {@code subscribers[loop]}: the non-group subscribers served by event loop {@code loop}. */
    final Subscriber[][] subscribers;
    /** The queue groups; every event loop looks at each, and one of them delivers. */
    final QueueGroupRoute[] groups;
    /** Subscribers and queue groups in all; 0 means nobody can receive the subject. */
    final int targets;

    private Route(Scope scope, Subscriber[][] subscribers, QueueGroupRoute[] groups, int targets) {
        this.scope = scope;
        this.subscribers = subscribers;
        this.groups = groups;
        this.targets = targets;
    }

    /**
     * Builds the route of a subject.
     *
     * @param scope      the subject's scope
     * @param candidates the subscribers whose pattern matches the subject
     * @param eventLoops the number of event loops
     */
    static Route build(Scope scope, List<Subscriber> candidates, int eventLoops) {
        List<List<Subscriber>> perLoop = new ArrayList<>(eventLoops);
        for (int i = 0; i < eventLoops; i++) {
            perLoop.add(new ArrayList<>());
        }
        Map<String, List<Subscriber>> byGroup = new LinkedHashMap<>();
        for (Subscriber candidate : candidates) {
            // A subscriber sees only subjects at or below its own scope.
            if (!candidate.isActive() || !candidate.scope().includes(scope)) {
                continue;
            }
            String group = candidate.options().queueGroup();
            if (group == null) {
                perLoop.get(candidate.loopIndex()).add(candidate);
            } else {
                byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(candidate);
            }
        }
        Subscriber[][] subscribers = new Subscriber[eventLoops][];
        int targets = 0;
        for (int i = 0; i < eventLoops; i++) {
            List<Subscriber> list = perLoop.get(i);
            subscribers[i] = list.isEmpty() ? NO_SUBSCRIBERS : list.toArray(NO_SUBSCRIBERS);
            targets += list.size();
        }
        QueueGroupRoute[] groups = new QueueGroupRoute[byGroup.size()];
        int g = 0;
        for (List<Subscriber> members : byGroup.values()) {
            groups[g++] = new QueueGroupRoute(members.toArray(NO_SUBSCRIBERS));
        }
        targets += groups.length;
        return new Route(scope, subscribers, groups, targets);
    }
}
