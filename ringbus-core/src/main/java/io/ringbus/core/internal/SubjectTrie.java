package io.ringbus.core.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Immutable trie of subscribers keyed by pattern tokens. Updates copy only the path from the
 * root to the changed node (path copying), so readers of an old trie are never disturbed and a
 * lookup costs one map probe per subject token plus the {@code *} branches, whatever the number
 * of subscriptions that do not match.
 */
final class SubjectTrie {
    static final SubjectTrie EMPTY = new SubjectTrie(Node.EMPTY);

    private final Node root;

    private SubjectTrie(Node root) {
        this.root = root;
    }

    /** @return a trie that also holds {@code subscriber} under its pattern */
    SubjectTrie add(Subscriber subscriber) {
        return new SubjectTrie(root.add(subscriber.subjectPattern(), 0, subscriber));
    }

    /** @return a trie without {@code subscriber}; this trie when it was absent */
    SubjectTrie remove(Subscriber subscriber) {
        Node newRoot = root.remove(subscriber.subjectPattern(), 0, subscriber);
        return newRoot == root ? this : new SubjectTrie(newRoot);
    }

    /** Adds every subscriber whose pattern matches the literal subject {@code tokens} to {@code out}. */
    void collect(String[] tokens, List<Subscriber> out) {
        root.collect(tokens, 0, out);
    }

    private record Node(Map<String, Node> literals, Node star, Subscriber[] here, Subscriber[] rest) {
        static final Subscriber[] NONE = new Subscriber[0];
        static final Node EMPTY = new Node(Map.of(), null, NONE, NONE);

        boolean isEmpty() {
            return literals.isEmpty() && star == null && here.length == 0 && rest.length == 0;
        }

        void collect(String[] tokens, int index, List<Subscriber> out) {
            if (index == tokens.length) {
                out.addAll(Arrays.asList(here));
                return;
            }
            // A '>' after this node matches the one or more tokens that remain.
            out.addAll(Arrays.asList(rest));
            Node literal = literals.get(tokens[index]);
            if (literal != null) {
                literal.collect(tokens, index + 1, out);
            }
            if (star != null) {
                star.collect(tokens, index + 1, out);
            }
        }

        Node add(SubjectPattern pattern, int index, Subscriber subscriber) {
            if (index == pattern.size()) {
                return new Node(literals, star, append(here, subscriber), rest);
            }
            String token = pattern.token(index);
            if (token.equals(SubjectPattern.GREATER)) {
                return new Node(literals, star, here, append(rest, subscriber));
            }
            if (token.equals(SubjectPattern.STAR)) {
                Node child = star == null ? EMPTY : star;
                return new Node(literals, child.add(pattern, index + 1, subscriber), here, rest);
            }
            Node child = literals.getOrDefault(token, EMPTY);
            Map<String, Node> copy = new HashMap<>(literals);
            copy.put(token, child.add(pattern, index + 1, subscriber));
            return new Node(copy, star, here, rest);
        }

        Node remove(SubjectPattern pattern, int index, Subscriber subscriber) {
            if (index == pattern.size()) {
                Subscriber[] without = without(here, subscriber);
                return without == here ? this : new Node(literals, star, without, rest);
            }
            String token = pattern.token(index);
            if (token.equals(SubjectPattern.GREATER)) {
                Subscriber[] without = without(rest, subscriber);
                return without == rest ? this : new Node(literals, star, here, without);
            }
            if (token.equals(SubjectPattern.STAR)) {
                if (star == null) {
                    return this;
                }
                Node child = star.remove(pattern, index + 1, subscriber);
                return child == star ? this : new Node(literals, child.isEmpty() ? null : child, here, rest);
            }
            Node child = literals.get(token);
            if (child == null) {
                return this;
            }
            Node newChild = child.remove(pattern, index + 1, subscriber);
            if (newChild == child) {
                return this;
            }
            Map<String, Node> copy = new HashMap<>(literals);
            if (newChild.isEmpty()) {
                copy.remove(token);
            } else {
                copy.put(token, newChild);
            }
            return new Node(copy.isEmpty() ? Map.of() : copy, star, here, rest);
        }

        private static Subscriber[] append(Subscriber[] array, Subscriber subscriber) {
            Subscriber[] copy = Arrays.copyOf(array, array.length + 1);
            copy[array.length] = subscriber;
            return copy;
        }

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
            return array;
        }
    }
}
