package io.ringbus.core.internal;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Trie of subscribers keyed by pattern tokens, changed in place by one writer at a time (the
 * index's write lock) and read concurrently without locks by any number of publishers.
 *
 * <p>Adding or removing a subscription touches only the nodes on its pattern's path: O(subject
 * depth) map operations plus a copy of that one node's subscriber array, whatever the number of
 * other subscriptions. Readers see each node's children map (a {@link ConcurrentHashMap}) and
 * subscriber arrays (volatile, replaced whole, never mutated) consistently one at a time; a
 * reader racing a change may see the trie before or after it, which the index's route cache
 * accounts for (see {@link ConcurrentSubjectIndex}). A lookup costs one map probe per subject
 * token plus the {@code *} branches.
 */
final class SubjectTrie {
    private static final Subscriber[] NONE = new Subscriber[0];

    private final Node root = new Node();

    /** Writer only: adds {@code subscriber} under its pattern. */
    void add(Subscriber subscriber) {
        SubjectPattern pattern = subscriber.subjectPattern();
        Node node = root;
        int n = pattern.size();
        for (int i = 0; i < n; i++) {
            String token = pattern.token(i);
            if (token.equals(SubjectPattern.GREATER)) {
                node.rest = append(node.rest, subscriber);
                return;
            }
            node = token.equals(SubjectPattern.STAR) ? node.starChild() : node.literalChild(token);
        }
        node.here = append(node.here, subscriber);
    }

    /**
     * Writer only: removes {@code subscriber} and prunes the nodes left empty.
     *
     * @return whether it was there
     */
    boolean remove(Subscriber subscriber) {
        SubjectPattern pattern = subscriber.subjectPattern();
        return remove(root, pattern, 0, subscriber);
    }

    private static boolean remove(Node node, SubjectPattern pattern, int index, Subscriber subscriber) {
        if (index == pattern.size()) {
            Subscriber[] without = without(node.here, subscriber);
            if (without == null) {
                return false;
            }
            node.here = without;
            return true;
        }
        String token = pattern.token(index);
        if (token.equals(SubjectPattern.GREATER)) {
            Subscriber[] without = without(node.rest, subscriber);
            if (without == null) {
                return false;
            }
            node.rest = without;
            return true;
        }
        if (token.equals(SubjectPattern.STAR)) {
            Node child = node.star;
            if (child == null || !remove(child, pattern, index + 1, subscriber)) {
                return false;
            }
            if (child.isEmpty()) {
                node.star = null;
            }
            return true;
        }
        ConcurrentHashMap<String, Node> literals = node.literals;
        Node child = literals == null ? null : literals.get(token);
        if (child == null || !remove(child, pattern, index + 1, subscriber)) {
            return false;
        }
        if (child.isEmpty()) {
            literals.remove(token, child);
        }
        return true;
    }

    /** Any thread: adds every subscriber whose pattern matches the subject {@code tokens} to {@code out}. */
    void collect(String[] tokens, List<Subscriber> out) {
        collect(root, tokens, 0, out);
    }

    private static void collect(Node node, String[] tokens, int index, List<Subscriber> out) {
        if (index == tokens.length) {
            out.addAll(Arrays.asList(node.here));
            return;
        }
        // A '>' after this node matches the one or more tokens that remain.
        out.addAll(Arrays.asList(node.rest));
        ConcurrentHashMap<String, Node> literals = node.literals;
        Node literal = literals == null ? null : literals.get(tokens[index]);
        if (literal != null) {
            collect(literal, tokens, index + 1, out);
        }
        Node star = node.star;
        if (star != null) {
            collect(star, tokens, index + 1, out);
        }
    }

    private static Subscriber[] append(Subscriber[] array, Subscriber subscriber) {
        Subscriber[] copy = Arrays.copyOf(array, array.length + 1);
        copy[array.length] = subscriber;
        return copy;
    }

    /** @return the array without {@code subscriber}, or {@code null} when it was not there */
    private static Subscriber[] without(Subscriber[] array, Subscriber subscriber) {
        for (int i = 0; i < array.length; i++) {
            if (array[i] == subscriber) {
                if (array.length == 1) {
                    return NONE;
                }
                Subscriber[] copy = new Subscriber[array.length - 1];
                System.arraycopy(array, 0, copy, 0, i);
                System.arraycopy(array, i + 1, copy, i, array.length - i - 1);
                return copy;
            }
        }
        return null;
    }

    /** One token position. Fields are written by the writer and read by anyone. */
    private static final class Node {
        /** Children by literal token; created on first use (most nodes are leaves). */
        volatile ConcurrentHashMap<String, Node> literals;
        volatile Node star;
        volatile Subscriber[] here = NONE;
        volatile Subscriber[] rest = NONE;

        Node literalChild(String token) {
            ConcurrentHashMap<String, Node> map = literals;
            if (map == null) {
                map = new ConcurrentHashMap<>(4);
                literals = map;
            }
            Node child = map.get(token);
            if (child == null) {
                child = new Node();
                map.put(token, child);
            }
            return child;
        }

        Node starChild() {
            Node child = star;
            if (child == null) {
                child = new Node();
                star = child;
            }
            return child;
        }

        boolean isEmpty() {
            ConcurrentHashMap<String, Node> map = literals;
            return (map == null || map.isEmpty()) && star == null && here.length == 0 && rest.length == 0;
        }
    }
}
