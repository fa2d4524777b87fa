package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.Scope;
import io.ringbus.core.internal.filter.ExactHeaderIndex;
import io.ringbus.core.internal.filter.SharedBody;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Where the messages of one literal subject go: the subject's scope, the subscribers the
 * publishing thread serves itself ({@link ExecutionMode#PUBLISHER}), and, per event loop, the
 * subscribers and queue groups served through the ring. Built once per subject and index change,
 * then only read by publishers and event loops.
 */
final class Route {
    private static final Subscriber[] NO_SUBSCRIBERS = new Subscriber[0];
    private static final QueueGroupRoute[] NO_GROUPS = new QueueGroupRoute[0];
    private static final IndexedSubscribers[] NO_INDEXED = new IndexedSubscribers[0];
    /** Subscribers of one loop whose filters key on one header, from which they are looked up together. */
    private static final int MIN_INDEXED = 4;

    /** Marks a slot whose payload is a {@link Fence}, not a message. */
    static final Route FENCE = new Route(Scope.ROOT, null, new Subscriber[0][], new IndexedSubscribers[0][],
            NO_GROUPS, NO_SUBSCRIBERS, NO_GROUPS, 0);

    final Scope scope;
    /** The subject's tokens, to tell whether a changed subscription touches this route; null for FENCE. */
    final String[] tokens;
    /** {@code subscribers[loop]}: the ring subscribers outside groups served by event loop {@code loop}. */
    final Subscriber[][] subscribers;
    /**
     * {@code indexed[loop]}: the filtered subscribers outside groups that event loop {@code loop}
     * looks up by a header's value ({@link IndexedSubscribers}) rather than asks one by one.
     */
    final IndexedSubscribers[][] indexed;
    /** The queue groups served through the ring; every event loop looks at each, and one of them delivers. */
    final QueueGroupRoute[] groups;
    /**
     * PUBLISHER subscribers outside groups: called on the publishing thread. Those with alike
     * filters ({@link SharedBody#alike}) are next to each other, so that one test serves them all.
     */
    final Subscriber[] direct;
    /** {@code directAlike[i]}: {@code direct[i]}'s filter is alike to {@code direct[i - 1]}'s, whose answer it takes. */
    private final boolean[] directAlike;
    /** The body policies of {@link #direct}, read once per message; {@code null} when fewer than two. */
    private final SharedBody directBodies;
    /** Queue groups whose members are all PUBLISHER subscribers: one member is called on the publishing thread. */
    final QueueGroupRoute[] directGroups;
    /** Whether a message needs a ring slot: some subscriber or group is served by an event loop. */
    final boolean ring;
    /** Subscribers and queue groups in all; 0 means nobody can receive the subject. */
    final int targets;
    /** The names of the queue groups this route serves (ring and direct), for the federation. */
    final String[] groupNames;
    /** Derived for deliveries from the federation (see {@link #plainWithPattern}, {@link #onlyGroup}). */
    private final ConcurrentHashMap<String, Route> derived = new ConcurrentHashMap<>(2);

    /**
     * @return whether this route holds state of its own that a second route of the same subject
     *         would not share (queue groups' turns, indexed subscribers' counts): such a route must
     *         be the one cached route of its subject
     */
    boolean keepsState() {
        if (groups.length != 0 || directGroups.length != 0) {
            return true;
        }
        for (IndexedSubscribers[] loop : indexed) {
            if (loop.length != 0) {
                return true;
            }
        }
        return false;
    }

    private Route(Scope scope, String[] tokens, Subscriber[][] subscribers, IndexedSubscribers[][] indexed,
                  QueueGroupRoute[] groups, Subscriber[] direct, QueueGroupRoute[] directGroups, int ringTargets) {
        this.scope = scope;
        this.tokens = tokens;
        this.subscribers = subscribers;
        this.indexed = indexed;
        this.groups = groups;
        this.direct = groupAlike(direct);
        this.directAlike = new boolean[this.direct.length];
        List<MessageFilter> distinct = new ArrayList<>();
        for (int i = 0; i < this.direct.length; i++) {
            MessageFilter filter = this.direct[i].filter;
            if (filter != null) {
                directAlike[i] = i > 0 && this.direct[i - 1].filter != null
                        && SharedBody.alike(this.direct[i - 1].filter, filter);
                if (!directAlike[i]) {
                    distinct.add(filter);
                }
            }
        }
        this.directBodies = SharedBody.of(distinct);
        this.directGroups = directGroups;
        this.ring = ringTargets > 0;
        this.targets = ringTargets + direct.length + directGroups.length;
        String[] names = new String[groups.length + directGroups.length];
        for (int i = 0; i < groups.length; i++) {
            names[i] = groups[i].name();
        }
        for (int i = 0; i < directGroups.length; i++) {
            names[groups.length + i] = directGroups[i].name();
        }
        this.groupNames = names;
    }

    /**
     * @return this route with only the subscribers outside queue groups whose pattern is
     *         {@code pattern} (a message another node sent for that pattern's subscription there)
     */
    Route plainWithPattern(String pattern) {
        return derived.computeIfAbsent(pattern, p -> {
            Subscriber[][] ring = new Subscriber[subscribers.length][];
            int ringTargets = 0;
            IndexedSubscribers[][] none = new IndexedSubscribers[subscribers.length][];
            for (int i = 0; i < subscribers.length; i++) {
                // Indexed subscribers are asked one by one here: derived routes are rare.
                ring[i] = Stream.concat(Arrays.stream(subscribers[i]),
                                Arrays.stream(indexed[i]).flatMap(group -> Arrays.stream(group.subscribers())))
                        .filter(s -> s.pattern().equals(p)).toArray(Subscriber[]::new);
                ringTargets += ring[i].length;
                none[i] = NO_INDEXED;
            }
            Subscriber[] onPublisher = Arrays.stream(direct).filter(s -> s.pattern().equals(p))
                    .toArray(Subscriber[]::new);
            return new Route(scope, tokens, ring, none, NO_GROUPS, onPublisher, NO_GROUPS, ringTargets);
        });
    }

    /** @return this route with only queue group {@code name} (a message from another node for that group) */
    Route onlyGroup(String name) {
        return derived.computeIfAbsent("\u0000" + name, key -> {
            String n = name;
            QueueGroupRoute[] ringGroup = NO_GROUPS;
            QueueGroupRoute[] directGroup = NO_GROUPS;
            for (QueueGroupRoute group : groups) {
                if (group.name().equals(n)) {
                    ringGroup = new QueueGroupRoute[] {group};
                }
            }
            for (QueueGroupRoute group : directGroups) {
                if (group.name().equals(n)) {
                    directGroup = new QueueGroupRoute[] {group};
                }
            }
            Subscriber[][] none = new Subscriber[subscribers.length][];
            Arrays.fill(none, NO_SUBSCRIBERS);
            IndexedSubscribers[][] noIndexed = new IndexedSubscribers[subscribers.length][];
            Arrays.fill(noIndexed, NO_INDEXED);
            return new Route(scope, tokens, none, noIndexed, ringGroup, NO_SUBSCRIBERS, directGroup, ringGroup.length);
        });
    }

    /**
     * Publishing thread: calls the PUBLISHER subscribers of this route, one member per direct group.
     */
    void deliverDirect(Message message) {
        Subscriber[] direct = this.direct;
        boolean[] alike = directAlike;
        SharedBody.Reading reading = directBodies == null ? null : directBodies.reading();
        boolean taken = true;
        for (int i = 0; i < direct.length; i++) {
            Subscriber subscriber = direct[i];
            if (subscriber.filter != null) {
                // One test per message for each run of alike filters (N identical filtered
                // subscriptions cost one), and one reading of the body for all body policies.
                if (!alike[i]) {
                    taken = subscriber.accepts(message, reading);
                } else if (!taken) {
                    subscriber.rejectedAlike();
                }
                if (!taken) {
                    continue;
                }
            }
            ((PublisherSubscriber) subscriber).deliverDirect(message);
        }
        QueueGroupRoute[] groups = directGroups;
        for (int i = 0; i < groups.length; i++) {
            groups[i].deliverDirect(message);
        }
    }

    /**
     * @return {@code direct} with the subscribers whose filters are alike moved next to the first
     *         of them; otherwise in the same order (unfiltered ones where they were)
     */
    private static Subscriber[] groupAlike(Subscriber[] direct) {
        int filtered = 0;
        for (Subscriber subscriber : direct) {
            if (subscriber.filter != null) {
                filtered++;
            }
        }
        if (filtered < 2) {
            return direct;
        }
        // Policies group by their text (equal policies decide alike); any other filter by identity.
        Map<MessageFilter, List<Subscriber>> byPolicy = new HashMap<>();
        Map<MessageFilter, List<Subscriber>> byIdentity = new IdentityHashMap<>();
        List<List<Subscriber>> runs = new ArrayList<>();
        for (Subscriber subscriber : direct) {
            MessageFilter filter = subscriber.filter;
            if (filter == null) {
                runs.add(List.of(subscriber));
                continue;
            }
            Map<MessageFilter, List<Subscriber>> runsByFilter = SharedBody.isPolicy(filter) ? byPolicy : byIdentity;
            List<Subscriber> run = runsByFilter.get(filter);
            if (run == null) {
                run = new ArrayList<>();
                runsByFilter.put(filter, run);
                runs.add(run);
            }
            run.add(subscriber);
        }
        Subscriber[] grouped = new Subscriber[direct.length];
        int at = 0;
        for (List<Subscriber> run : runs) {
            for (Subscriber subscriber : run) {
                grouped[at++] = subscriber;
            }
        }
        return grouped;
    }

    /**
     * Builds the route of a subject.
     *
     * @param scope      the scope its messages have: the subject's, or a requester's for a reply
     * @param tokens     the subject's tokens
     * @param candidates the subscribers whose pattern matches the subject
     * @param eventLoops the number of event loops
     */
    static Route build(Scope scope, String[] tokens, List<Subscriber> candidates, int eventLoops) {
        List<List<Subscriber>> perLoop = new ArrayList<>(eventLoops);
        for (int i = 0; i < eventLoops; i++) {
            perLoop.add(new ArrayList<>());
        }
        List<Subscriber> direct = new ArrayList<>();
        Map<String, List<Subscriber>> byGroup = new LinkedHashMap<>();
        for (Subscriber candidate : candidates) {
            // A subscriber sees only subjects at or below its own scope.
            if (!candidate.isActive() || !candidate.scope().includes(scope)) {
                continue;
            }
            String group = candidate.options().queueGroup();
            if (group != null) {
                byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(candidate);
            } else if (candidate instanceof PublisherSubscriber) {
                direct.add(candidate);
            } else {
                perLoop.get(candidate.loopIndex()).add(candidate);
            }
        }
        Subscriber[][] subscribers = new Subscriber[eventLoops][];
        IndexedSubscribers[][] indexed = new IndexedSubscribers[eventLoops][];
        int ringTargets = 0;
        String subject = tokens == null ? "" : String.join(".", tokens);
        for (int i = 0; i < eventLoops; i++) {
            List<Subscriber> list = perLoop.get(i);
            ringTargets += list.size();
            indexed[i] = index(list, subject);
            subscribers[i] = list.isEmpty() ? NO_SUBSCRIBERS : list.toArray(NO_SUBSCRIBERS);
        }
        List<QueueGroupRoute> ringGroups = new ArrayList<>();
        List<QueueGroupRoute> directGroups = new ArrayList<>();
        for (List<Subscriber> members : byGroup.values()) {
            boolean allDirect = true;
            for (Subscriber member : members) {
                allDirect &= member instanceof PublisherSubscriber;
            }
            (allDirect ? directGroups : ringGroups).add(new QueueGroupRoute(members.toArray(NO_SUBSCRIBERS)));
        }
        ringTargets += ringGroups.size();
        return new Route(scope, tokens, subscribers, indexed, ringGroups.toArray(NO_GROUPS),
                direct.toArray(NO_SUBSCRIBERS), directGroups.toArray(NO_GROUPS), ringTargets);
    }

    /**
     * Takes out of {@code list} the subscribers whose filters key on one header's exact values,
     * where at least {@link #MIN_INDEXED} share a header, and groups them by that header.
     */
    private static IndexedSubscribers[] index(List<Subscriber> list, String subject) {
        Map<String, List<Subscriber>> byHeader = null;
        Map<Subscriber, ExactHeaderIndex.Key> keys = null;
        for (Subscriber candidate : list) {
            ExactHeaderIndex.Key key = candidate.filter == null ? null : ExactHeaderIndex.keyOf(candidate.filter);
            if (key != null) {
                if (byHeader == null) {
                    byHeader = new LinkedHashMap<>();
                    keys = new HashMap<>();
                }
                byHeader.computeIfAbsent(key.header(), h -> new ArrayList<>()).add(candidate);
                keys.put(candidate, key);
            }
        }
        if (byHeader == null) {
            return NO_INDEXED;
        }
        List<IndexedSubscribers> groups = new ArrayList<>();
        for (Map.Entry<String, List<Subscriber>> entry : byHeader.entrySet()) {
            List<Subscriber> members = entry.getValue();
            if (members.size() >= MIN_INDEXED) {
                List<ExactHeaderIndex.Key> memberKeys = new ArrayList<>(members.size());
                for (Subscriber member : members) {
                    memberKeys.add(keys.get(member));
                }
                groups.add(new IndexedSubscribers(entry.getKey(), members, memberKeys, subject));
                list.removeAll(new HashSet<>(members));
            }
        }
        return groups.isEmpty() ? NO_INDEXED : groups.toArray(NO_INDEXED);
    }
}
