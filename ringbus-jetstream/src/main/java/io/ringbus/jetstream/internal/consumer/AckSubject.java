package io.ringbus.jetstream.internal.consumer;

/**
 * The parts of an ack or flow-control subject that are read, found without splitting the whole
 * subject: {@code $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>} (nine tokens)
 * and {@code $JS.FC.<stream>.<consumer>.<id>}. Tokens are what lies between dots, empty ones included,
 * as {@code String.split("\\.", -1)} gives them.
 *
 * @param flowControl whether the second token is {@code FC}
 * @param stream      the third token
 * @param consumer    the fourth token
 * @param tokens      how many tokens the subject has
 * @param numbered    whether the subject has nine tokens and its sixth is a number
 * @param sequence    that number: an ack's stream sequence (0 when not numbered)
 */
record AckSubject(boolean flowControl, String stream, String consumer, int tokens, boolean numbered, long sequence) {
    /** @return the parts, or null when the subject has fewer than five tokens */
    static AckSubject parse(String subject) {
        int[] dots = new int[8];
        int count = 0;
        for (int i = subject.indexOf('.'); i >= 0; i = subject.indexOf('.', i + 1)) {
            if (count < dots.length) {
                dots[count] = i;
            }
            count++;
        }
        int tokens = count + 1;
        if (tokens < 5) {
            return null;
        }
        boolean flowControl = dots[1] - dots[0] == 3 && subject.startsWith("FC", dots[0] + 1);
        boolean numbered = false;
        long sequence = 0;
        if (tokens == 9) {
            try {
                sequence = Long.parseLong(subject, dots[4] + 1, dots[5], 10);
                numbered = true;
            } catch (NumberFormatException e) {
                sequence = 0;
            }
        }
        return new AckSubject(flowControl, subject.substring(dots[1] + 1, dots[2]),
                subject.substring(dots[2] + 1, dots[3]), tokens, numbered, sequence);
    }
}
