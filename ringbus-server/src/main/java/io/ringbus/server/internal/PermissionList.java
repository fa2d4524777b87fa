package io.ringbus.server.internal;

import java.util.List;

/**
 * One allow or deny list of a user's permissions, compiled: subject patterns, each with an
 * optional queue group pattern, matched token by token as nats-server's sublist matches them,
 * the tokens of the tested subject taken literally (so that a subscription's wildcards match only
 * entries that cover them: entry {@code a.>} matches {@code a.*}, entry {@code a.b} does not).
 *
 * <p>Immutable; any thread. Matching allocates nothing.
 */
final class PermissionList {
    private final String[][] subjects;
    /** The queue group pattern of each entry, {@code null} for a plain entry. */
    private final String[] queues;

    private PermissionList(String[][] subjects, String[] queues) {
        this.subjects = subjects;
        this.queues = queues;
    }

    /** @param entries patterns, each optionally {@code "pattern queue"}; {@code null} gives {@code null} */
    static PermissionList of(List<String> entries) {
        if (entries == null) {
            return null;
        }
        String[][] subjects = new String[entries.size()][];
        String[] queues = new String[entries.size()];
        for (int i = 0; i < subjects.length; i++) {
            String entry = entries.get(i);
            int space = entry.indexOf(' ');
            subjects[i] = (space < 0 ? entry : entry.substring(0, space)).split("\\.", -1);
            queues[i] = space < 0 ? null : entry.substring(space + 1);
        }
        return new PermissionList(subjects, queues);
    }

    /** @return whether a plain entry (no queue group) matches {@code subject} */
    boolean matchesPlain(String subject) {
        for (int i = 0; i < subjects.length; i++) {
            if (queues[i] == null && matches(subjects[i], subject)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether an entry with a queue group matches {@code subject} */
    boolean hasQueueEntryFor(String subject) {
        for (int i = 0; i < subjects.length; i++) {
            if (queues[i] != null && matches(subjects[i], subject)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether an entry with a queue group matches {@code subject} and {@code queue} */
    boolean matchesQueue(String subject, String queue) {
        for (int i = 0; i < subjects.length; i++) {
            if (queues[i] != null && matches(subjects[i], subject) && matches(queues[i].split("\\.", -1), queue)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return whether some message subject could match both {@code pattern} and a plain entry of
     *         this list (the subscription {@code pattern} must then filter its deliveries)
     */
    boolean overlaps(String pattern) {
        String[] tokens = pattern.split("\\.", -1);
        for (int i = 0; i < subjects.length; i++) {
            if (queues[i] == null && overlap(subjects[i], tokens)) {
                return true;
            }
        }
        return false;
    }

    private static boolean overlap(String[] a, String[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            if (a[i].equals(">") || b[i].equals(">")) {
                return true;
            }
            if (!a[i].equals("*") && !b[i].equals("*") && !a[i].equals(b[i])) {
                return false;
            }
        }
        return a.length == b.length;
    }

    /** Token-wise match of {@code subject} (its tokens taken literally) against {@code pattern}; no allocation. */
    static boolean matches(String[] pattern, String subject) {
        int length = subject.length();
        int pos = 0;
        for (String token : pattern) {
            if (pos > length) {
                return false; // the subject has fewer tokens
            }
            if (token.equals(">")) {
                return true; // at least one token left: pos <= length
            }
            int end = subject.indexOf('.', pos);
            if (end < 0) {
                end = length;
            }
            if (!token.equals("*") && (end - pos != token.length() || !subject.startsWith(token, pos))) {
                return false;
            }
            pos = end + 1;
        }
        return pos == length + 1;
    }
}
