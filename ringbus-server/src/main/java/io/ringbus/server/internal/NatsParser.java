package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.ringbus.server.ServerConfig;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Incremental parser of the NATS client protocol (client to server) over a Netty {@link ByteBuf}.
 *
 * <h2>Grammar accepted</h2>
 * <pre>
 * stream   = *op
 * op       = pub / hpub / sub / unsub / connect / ping / pong / ok / err / info
 * pub      = "PUB"     sep subject [sep reply-to] sep size [ws] eol payload CRLF
 * hpub     = "HPUB"    sep subject [sep reply-to] sep hsize sep size [ws] eol headers payload CRLF
 * sub      = "SUB"     sep subject [sep queue-group] sep sid [ws] eol
 * unsub    = "UNSUB"   sep sid [sep max-msgs] [ws] eol   ; a max-msgs that is no number: unsubscribe now
 * connect  = "CONNECT" sep json eol          ; json = rest of the line, handed over undecoded
 * ping     = "PING"    *octet eol            ; rest of the line ignored ("PINGX" too), as nats-server does
 * pong     = "PONG"    *octet eol            ; likewise
 * ok       = "+OK"     [sep *octet] eol      ; ignored, as nats-server does for clients
 * err      = "-ERR"    [sep *octet] eol      ; a client reporting an error: closes (PARSER_ERROR)
 * info     = "INFO"    [sep *octet] eol      ; ignored, as nats-server does for clients
 *
 * sep      = 1*(SP / HTAB)                   ; ws = sep
 * eol      = [CR] LF                         ; bare LF accepted, as nats-server does
 * size     = 1*9DIGIT                        ; payload bytes, &lt;= maxPayload      (MAX_SIZE_DIGITS)
 * hsize    = 1*9DIGIT                        ; header bytes, &lt;= size
 * max-msgs = 1*9DIGIT                        ; (MAX_COUNT_DIGITS; more: unsubscribe now, as nats-server)
 * headers  = *octet                          ; exactly hsize octets, forwarded as they are
 *                                            ; (clients send "NATS/1.0..." (NatsHeaderBlock.VERSION))
 * payload  = *octet                          ; exactly size (PUB) or size - hsize (HPUB) octets
 * subject, reply-to, queue-group, sid = 1*(any octet but SP, HTAB, LF)
 * </pre>
 * Verbs are case-insensitive and must be followed by {@code sep} or {@code eol} (PING and PONG by anything). The control line
 * (verb up to, not including, {@code eol}) is at most {@code maxControlLine} octets (the server
 * passes {@link ServerConfig#MAX_CONTROL_LINE}; its payload limit defaults to
 * {@link ServerConfig#DEFAULT_MAX_PAYLOAD}). The lines the server writes are in
 * {@link NatsProtocol}. The payload
 * terminator must be exactly CRLF (as in nats-server). Token contents are not checked here: the
 * connection validates subjects against the broker. Tokens are byte strings, decoded one to one
 * by {@link SubjectCodec} (no two byte strings give the same String).
 *
 * <h2>Errors</h2>
 * Every error below is reported once through {@link ProtocolHandler#onError}, closes (the parser
 * then ignores further input), and is detected as soon as the bytes showing it have arrived:
 * <ul>
 *   <li>{@link ProtocolError#UNKNOWN_OPERATION}: the line does not start with a verb above
 *       (including empty lines and leading whitespace).</li>
 *   <li>{@link ProtocolError#MAX_CONTROL_LINE}: no {@code eol} within {@code maxControlLine}
 *       octets of the start of a line.</li>
 *   <li>{@link ProtocolError#MAX_PAYLOAD}: {@code size} above {@code maxPayload}.</li>
 *   <li>{@link ProtocolError#PARSER_ERROR}: wrong argument count; a size that is not 1 to 9
 *       digits; {@code hsize > size}; a payload not
 *       followed by CRLF (a payload longer than announced); {@code -ERR} from the client.
 *       (nats-server closes without {@code -ERR} for bad arguments and sends 'Unknown Protocol
 *       Operation' for a bad payload terminator; 'Parser Error' is the more precise answer.)</li>
 * </ul>
 *
 * <p>Input left unconsumed is one incomplete operation, at most
 * {@code max(maxControlLine + 2, 8) + maxPayload + 2} octets (8: "CONNECT
" may still become a
 * verb), unless a refused operation stopped the parse.
 *
 * <p>Not thread-safe: one parser per connection, used on its event loop. {@link #setMaxPayload}
 * may be called from any thread and applies to operations decoded after it.
 */
public final class NatsParser {
    /** Largest {@code maxControlLine} accepted by the constructor. */
    public static final int MAX_CONTROL_LINE_LIMIT = 1 << 20;
    /** Most digits in a size field; more is a parser error (as nats-server), so sizes fit an int. */
    public static final int MAX_SIZE_DIGITS = 9;
    /** Largest size a size field can express, hence the largest useful {@code maxPayload}. */
    public static final int MAX_SIZE = 999_999_999;
    /**
     * Most digits in the {@code max-msgs} field of UNSUB: nats-server reads it as a size (9 digits
     * at most), and a longer one, as any that is not a number, unsubscribes at once.
     */
    public static final int MAX_COUNT_DIGITS = 9;

    private static final int MAX_ARGS = 4;
    private static final int SNIPPET_LENGTH = 64;
    private static final int SUBJECT_CACHE_SIZE = 32; // power of two
    private static final int MAX_CACHED_SUBJECT = 128;
    private static final int INITIAL_LINE_BUFFER = 256;
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long SPACES = 0x2020202020202020L;
    private static final long TABS = 0x0909090909090909L;
    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final byte SP = ' ';
    private static final byte TAB = '\t';
    /** Returned by the decode methods: stop parsing (incomplete, refused, or failed). */
    private static final int STOP = -1;
    /** "pub " with the three letters lower-cased by OR 0x20, read as one big-endian int. */
    private static final int PUB_SP = 0x70756220;
    private static final int LETTERS_0_TO_2 = 0x20202000;

    private static final int V_PUB = 0;
    private static final int V_HPUB = 1;
    private static final int V_SUB = 2;
    private static final int V_UNSUB = 3;
    private static final int V_PING = 4;
    private static final int V_PONG = 5;
    private static final int V_CONNECT = 6;
    private static final int V_OK = 7; // 8 is -ERR
    private static final int V_INFO = 9;
    private static final int V_PARTIAL = -1;
    private static final int V_UNKNOWN = -2;
    private static final byte[][] VERBS = {
        ascii("PUB"), ascii("HPUB"), ascii("SUB"), ascii("UNSUB"), ascii("PING"), ascii("PONG"),
        ascii("CONNECT"), ascii("+OK"), ascii("-ERR"), ascii("INFO")};

    private final int maxControlLine;
    private volatile int maxPayload;
    private boolean closed;
    private final int[] argStart = new int[MAX_ARGS];
    private final int[] argEnd = new int[MAX_ARGS];
    // The arguments of the line being decoded, copied out of the ByteBuf in one bulk copy by
    // split(): scanning a byte[] is several times cheaper than getByte per octet (bounds and
    // reference-count checks on each call). argStart/argEnd index into it. Grows up to
    // maxControlLine.
    private byte[] line = new byte[INITIAL_LINE_BUFFER];
    // Publishers mostly reuse a few subjects: a direct-mapped cache keyed by the subject's bytes
    // saves decoding a String per message.
    private final byte[][] cachedSubjectBytes = new byte[SUBJECT_CACHE_SIZE][];
    private final String[] cachedSubjects = new String[SUBJECT_CACHE_SIZE];
    private byte[] lastSubjectBytes;
    private String lastSubject;

    /**
     * Creates a parser.
     *
     * @param maxControlLine longest control line in octets, 1 to {@link #MAX_CONTROL_LINE_LIMIT}
     * @param maxPayload     largest payload (HPUB: headers included) in octets, 0 to {@link #MAX_SIZE}
     * @throws IllegalArgumentException if a limit is out of range
     */
    public NatsParser(int maxControlLine, int maxPayload) {
        if (maxControlLine < 1 || maxControlLine > MAX_CONTROL_LINE_LIMIT) {
            throw new IllegalArgumentException("maxControlLine must be in [1, " + MAX_CONTROL_LINE_LIMIT
                + "]: maxControlLine=" + maxControlLine);
        }
        this.maxControlLine = maxControlLine;
        setMaxPayload(maxPayload);
    }

    /**
     * Changes the payload limit for operations decoded from now on. Any thread.
     *
     * @throws IllegalArgumentException if {@code maxPayload} is not in [0, {@link #MAX_SIZE}]
     */
    public void setMaxPayload(int maxPayload) {
        if (maxPayload < 0 || maxPayload > MAX_SIZE) {
            throw new IllegalArgumentException("maxPayload must be in [0, " + MAX_SIZE + "]: maxPayload=" + maxPayload);
        }
        this.maxPayload = maxPayload;
    }

    /** @return the payload limit in force */
    public int maxPayload() {
        return maxPayload;
    }

    /** @return the control line limit */
    public int maxControlLine() {
        return maxControlLine;
    }

    /** @return whether an error or {@link #close()} stopped this parser */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops this parser, for a connection that closes for reasons of its own (an authorization
     * failure in {@code onConnect}, say): a {@link #parse} in progress returns right after the
     * callback that called this, without touching the buffer again; later calls discard input.
     */
    public void close() {
        closed = true;
    }

    /**
     * Decodes as many complete operations as {@code in} holds, calling {@code handler} for each
     * in order and advancing {@code in.readerIndex()} past each one handled. Stops, leaving the
     * reader index at the start of the operation concerned, when that operation is incomplete
     * (call again once more bytes are appended), when a {@code boolean} callback refuses it (it is
     * decoded again by the next call), or after an error. During a callback the reader index is
     * still at the start of the operation. Never throws for any input; exceptions from
     * {@code handler} propagate with the reader index at the start of the failing operation.
     * Once closed (by an error or {@link #close()}), the parser discards the input of later calls.
     */
    public void parse(ByteBuf in, ProtocolHandler handler) {
        if (closed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable()) {
            int start = in.readerIndex();
            int next;
            if (in.writerIndex() - start >= 4 && (in.getInt(start) | LETTERS_0_TO_2) == PUB_SP) {
                int lf = findLf(in, start, start + 4);
                next = lf >= 0 ? decodePub(in, start, lf, handler) : incompleteLine(in, start, handler);
            } else {
                next = decodeSlowPath(in, start, handler);
            }
            if (next == STOP || closed) {
                return;
            }
            in.readerIndex(next);
        }
    }

    private int decodePub(ByteBuf in, int start, int lf, ProtocolHandler handler) {
        int lineEnd = lineEnd(in, start, lf);
        if (lineEnd - start > maxControlLine) {
            return lineTooLong(handler);
        }
        int n = split(in, start + 3, lineEnd);
        if (n != 2 && n != 3) {
            return fail(handler, ProtocolError.PARSER_ERROR,
                "PUB needs <subject> [reply-to] <#bytes>: " + snippet(in, start, lineEnd));
        }
        int size = (int) parseNumber(argStart[n - 1], argEnd[n - 1], MAX_SIZE_DIGITS);
        if (size < 0) {
            return fail(handler, ProtocolError.PARSER_ERROR, "PUB bad size: " + snippet(in, start, lineEnd));
        }
        int max = maxPayload;
        if (size > max) {
            return fail(handler, ProtocolError.MAX_PAYLOAD, "PUB size " + size + " > max_payload " + max);
        }
        int payload = lf + 1;
        if (in.writerIndex() - payload < size) {
            return STOP;
        }
        int next = terminator(in, payload + size, handler);
        if (next == STOP) {
            return STOP;
        }
        String subject = subject(argStart[0], argEnd[0]);
        String replyTo = n == 3 ? string(argStart[1], argEnd[1]) : null;
        return handler.onPub(subject, replyTo, in, payload, size) ? next : STOP;
    }

    private int decodeSlowPath(ByteBuf in, int start, ProtocolHandler handler) {
        int end = in.writerIndex();
        int verb = matchVerb(in, start, end);
        if (verb == V_PARTIAL) {
            return STOP;
        }
        if (verb == V_UNKNOWN) {
            return fail(handler, ProtocolError.UNKNOWN_OPERATION, "unknown operation: " + snippet(in, start, end));
        }
        int lf = findLf(in, start, start + VERBS[verb].length);
        if (lf < 0) {
            return incompleteLine(in, start, handler);
        }
        if (verb == V_PUB) {
            return decodePub(in, start, lf, handler);
        }
        int lineEnd = lineEnd(in, start, lf);
        if (lineEnd - start > maxControlLine) {
            return lineTooLong(handler);
        }
        int args = start + VERBS[verb].length;
        return switch (verb) {
            case V_HPUB -> decodeHpub(in, start, lf, lineEnd, handler);
            case V_SUB -> decodeSub(in, start, args, lf, lineEnd, handler);
            case V_UNSUB -> decodeUnsub(in, start, args, lf, lineEnd, handler);
            case V_CONNECT -> {
                int json = args;
                while (json < lineEnd && isSpace(in.getByte(json))) {
                    json++;
                }
                yield handler.onConnect(in.toString(json, lineEnd - json, StandardCharsets.UTF_8)) ? lf + 1 : STOP;
            }
            case V_PING -> {
                handler.onPing();
                yield lf + 1;
            }
            case V_PONG -> {
                handler.onPong();
                yield lf + 1;
            }
            // A client's +OK or INFO: ignored, as nats-server ignores them from clients.
            case V_OK, V_INFO -> lf + 1;
            // nats-server closes a client that sends -ERR
            default -> fail(handler, ProtocolError.PARSER_ERROR, "client sent " + snippet(in, start, lineEnd));
        };
    }

    private int decodeSub(ByteBuf in, int start, int args, int lf, int lineEnd, ProtocolHandler handler) {
        int n = split(in, args, lineEnd);
        if (n != 2 && n != 3) {
            return fail(handler, ProtocolError.PARSER_ERROR,
                "SUB needs <subject> [queue group] <sid>: " + snippet(in, start, lineEnd));
        }
        String queueGroup = n == 3 ? string(argStart[1], argEnd[1]) : null;
        handler.onSub(string(argStart[0], argEnd[0]), queueGroup, string(argStart[n - 1], argEnd[n - 1]));
        return lf + 1;
    }

    private int decodeUnsub(ByteBuf in, int start, int args, int lf, int lineEnd, ProtocolHandler handler) {
        int n = split(in, args, lineEnd);
        // A max that is not a number unsubscribes at once, as nats-server takes it (-1).
        long maxMessages = n == 2 ? parseNumber(argStart[1], argEnd[1], MAX_COUNT_DIGITS) : -1;
        if (n < 1 || n > 2) {
            return fail(handler, ProtocolError.PARSER_ERROR, "UNSUB needs <sid> [max_msgs]: " + snippet(in, start, lineEnd));
        }
        handler.onUnsub(string(argStart[0], argEnd[0]), maxMessages);
        return lf + 1;
    }

    private int decodeHpub(ByteBuf in, int start, int lf, int lineEnd, ProtocolHandler handler) {
        int n = split(in, start + 4, lineEnd);
        if (n != 3 && n != 4) {
            return fail(handler, ProtocolError.PARSER_ERROR,
                "HPUB needs <subject> [reply-to] <#header bytes> <#total bytes>: " + snippet(in, start, lineEnd));
        }
        int headerSize = (int) parseNumber(argStart[n - 2], argEnd[n - 2], MAX_SIZE_DIGITS);
        int size = (int) parseNumber(argStart[n - 1], argEnd[n - 1], MAX_SIZE_DIGITS);
        if (headerSize < 0 || size < 0) {
            return fail(handler, ProtocolError.PARSER_ERROR, "HPUB bad size: " + snippet(in, start, lineEnd));
        }
        if (headerSize > size) {
            return fail(handler, ProtocolError.PARSER_ERROR,
                "HPUB header size " + headerSize + " > total size " + size);
        }
        int max = maxPayload;
        if (size > max) {
            return fail(handler, ProtocolError.MAX_PAYLOAD, "HPUB size " + size + " > max_payload " + max);
        }
        // The header block is forwarded as received, whatever it holds (nats-server checks nothing more).
        int headers = lf + 1;
        int available = in.writerIndex() - headers;
        if (available < size) {
            return STOP;
        }
        int next = terminator(in, headers + size, handler);
        if (next == STOP) {
            return STOP;
        }
        String subject = subject(argStart[0], argEnd[0]);
        String replyTo = n == 4 ? string(argStart[1], argEnd[1]) : null;
        boolean accepted = handler.onHpub(subject, replyTo, in, headers, headerSize, size - headerSize);
        return accepted ? next : STOP;
    }

    /** Checks the CRLF after a payload, as far as it has arrived; the index after it, or STOP. */
    private int terminator(ByteBuf in, int at, ProtocolHandler handler) {
        int available = in.writerIndex() - at;
        if (available >= 1 && in.getByte(at) != CR || available >= 2 && in.getByte(at + 1) != LF) {
            return fail(handler, ProtocolError.PARSER_ERROR, "payload not followed by CRLF (longer than announced?)");
        }
        return available >= 2 ? at + 2 : STOP;
    }

    /** The LF ending the line that starts at {@code start}, searched from {@code from}; -1 if none yet. */
    private int findLf(ByteBuf in, int start, int from) {
        int end = in.writerIndex();
        // Content of at most maxControlLine octets, then CR LF: no need to look further.
        int limit = end - start > maxControlLine + 2 ? start + maxControlLine + 2 : end;
        return from < limit ? in.indexOf(from, limit, LF) : -1;
    }

    private int incompleteLine(ByteBuf in, int start, ProtocolHandler handler) {
        return in.writerIndex() - start >= maxControlLine + 2 ? lineTooLong(handler) : STOP;
    }

    private int lineTooLong(ProtocolHandler handler) {
        return fail(handler, ProtocolError.MAX_CONTROL_LINE, "control line longer than " + maxControlLine + " bytes");
    }

    private int fail(ProtocolHandler handler, ProtocolError error, String detail) {
        closed = error.closes(); // all errors this parser reports close the connection
        handler.onError(error, detail);
        return STOP;
    }

    private static int lineEnd(ByteBuf in, int start, int lf) {
        return lf > start && in.getByte(lf - 1) == CR ? lf - 1 : lf;
    }

    /**
     * Copies [from, to) of {@code in} into {@link #line} and splits it at SP/HTAB runs; stores up
     * to MAX_ARGS tokens (as indexes into {@code line}) and returns how many there are.
     */
    private int split(ByteBuf in, int from, int to) {
        int length = to - from;
        byte[] bytes = line;
        if (bytes.length < length) {
            bytes = line = new byte[Math.max(length, Math.min(bytes.length * 2, maxControlLine))];
        }
        in.getBytes(from, bytes, 0, length);
        int n = 0;
        int i = 0;
        while (true) {
            while (i < length && isSpace(bytes[i])) {
                i++;
            }
            if (i == length) {
                return n;
            }
            int tokenStart = i;
            i = nextSpace(bytes, i + 1, length);
            if (n < MAX_ARGS) {
                argStart[n] = tokenStart;
                argEnd[n] = i;
            }
            n++;
        }
    }

    /** Index of the first SP or HTAB in bytes[from, to), or {@code to}: eight octets at a time. */
    private static int nextSpace(byte[] bytes, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) LONG_LE.get(bytes, i);
            // The lowest flagged byte of each zero-byte test is exact (false positives only sit
            // above a true zero), so the lowest bit of the OR is the first SP or HTAB.
            long found = zeroBytes(word ^ SPACES) | zeroBytes(word ^ TABS);
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        while (i < to && !isSpace(bytes[i])) {
            i++;
        }
        return i;
    }

    /** The high bit of the lowest zero byte of {@code x} set (and maybe of higher bytes); 0 if none. */
    private static long zeroBytes(long x) {
        return (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
    }

    /** Parses 1 to {@code maxDigits} ASCII digits of {@link #line}, no sign; -1 if anything else. Cannot overflow. */
    private long parseNumber(int from, int to, int maxDigits) {
        if (to - from > maxDigits || to == from) {
            return -1;
        }
        byte[] bytes = line;
        long value = 0;
        for (int i = from; i < to; i++) {
            int digit = bytes[i] - '0';
            if (digit < 0 || digit > 9) {
                return -1;
            }
            value = value * 10 + digit;
        }
        return value;
    }

    /** The verb starting at {@code start}, V_PARTIAL if the bytes so far may still become one, else V_UNKNOWN. */
    private static int matchVerb(ByteBuf in, int start, int end) {
        for (int v = 0; v < VERBS.length; v++) {
            byte[] verb = VERBS[v];
            int i = 0;
            while (i < verb.length && start + i < end && upperCase(in.getByte(start + i)) == verb[i]) {
                i++;
            }
            if (start + i == end) {
                return V_PARTIAL;
            }
            if (i < verb.length) {
                continue;
            }
            if (v == V_PING || v == V_PONG) {
                // nats-server reads PING and PONG up to the end of the line, whatever follows.
                return v;
            }
            int after = start + verb.length;
            byte b = in.getByte(after);
            if (b == SP || b == TAB || b == LF) {
                return v;
            }
            if (b == CR) {
                if (after + 1 == end) {
                    return V_PARTIAL;
                }
                if (in.getByte(after + 1) == LF) {
                    return v;
                }
            }
        }
        return V_UNKNOWN;
    }

    /** A token of {@link #line} as a String, from the subject cache when it is there. */
    private String subject(int from, int to) {
        int length = to - from;
        if (length > MAX_CACHED_SUBJECT) {
            return string(from, to);
        }
        byte[] bytes = line;
        byte[] last = lastSubjectBytes;
        // Most publishers repeat one subject: one vectorized compare, no hash.
        if (last != null && Arrays.equals(bytes, from, to, last, 0, last.length)) {
            return lastSubject;
        }
        int hash = length;
        for (int i = from; i < to; i++) {
            hash = 31 * hash + bytes[i];
        }
        int slot = (hash ^ (hash >>> 16)) & (SUBJECT_CACHE_SIZE - 1);
        byte[] cached = cachedSubjectBytes[slot];
        if (cached == null || !Arrays.equals(bytes, from, to, cached, 0, cached.length)) {
            cached = Arrays.copyOfRange(bytes, from, to);
            cachedSubjectBytes[slot] = cached;
            cachedSubjects[slot] = SubjectCodec.decode(cached, 0, cached.length);
        }
        lastSubjectBytes = cached;
        lastSubject = cachedSubjects[slot];
        return lastSubject;
    }

    /** A token of {@link #line}, decoded one to one by {@link SubjectCodec}. */
    private String string(int from, int to) {
        return SubjectCodec.decode(line, from, to);
    }

    private static boolean isSpace(byte b) {
        return b == SP || b == TAB;
    }

    private static int upperCase(byte b) {
        return b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b;
    }

    /** Up to SNIPPET_LENGTH bytes for a log line, quoted, non-printable bytes escaped as \xNN. */
    private static String snippet(ByteBuf in, int from, int to) {
        int n = Math.min(to - from, SNIPPET_LENGTH);
        StringBuilder sb = new StringBuilder(n + 8).append('\'');
        for (int i = from; i < from + n; i++) {
            int b = in.getByte(i) & 0xFF;
            if (b >= 0x20 && b < 0x7F && b != '\\') {
                sb.append((char) b);
            } else {
                sb.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            }
        }
        return sb.append(to - from > n ? "...'" : "'").toString();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
