package io.ringbus.server.internal;

/**
 * The options a client sends in {@code CONNECT <json>}. Fields absent or {@code null} in the JSON
 * keep their defaults ({@link #DEFAULTS}: as nats-server, {@code verbose}, {@code pedantic} and
 * {@code echo} true, everything else false/null/0); unknown
 * fields, and {@code jwt}, are ignored.
 *
 * @param protocol 0 = original protocol, 1 = dynamic cluster info (as in the NATS docs)
 * @param nkey     the client's NKEY public key, or {@code null}
 * @param sig      its signature of the INFO nonce (base64url), or {@code null}
 */
public record ConnectOptions(boolean verbose, boolean pedantic, boolean tlsRequired, String authToken,
                             String user, String pass, String name, String lang, String version,
                             int protocol, boolean echo, boolean headers, boolean noResponders, String nkey,
                             String sig) {

    /** The options of a client that sent an empty object, or no CONNECT yet (nats-server's defaults). */
    public static final ConnectOptions DEFAULTS =
        new ConnectOptions(true, true, false, null, null, null, null, null, null, 0, true, false, false, null, null);

    /** Deepest nesting of skipped objects/arrays accepted, so hostile input cannot exhaust the stack. */
    public static final int MAX_DEPTH = 32;

    /**
     * Parses the JSON object of a CONNECT line: RFC 8259 syntax, one top-level object, nothing after it.
     *
     * @throws IllegalArgumentException naming the problem if {@code json} is null, not such an object,
     *                                  or a known field has the wrong type (e.g. {@code "verbose":"yes"})
     */
    public static ConnectOptions parse(String json) {
        if (json == null) {
            throw new IllegalArgumentException("CONNECT json must not be null");
        }
        return new Reader(json).connectOptions();
    }

    /** Masks {@code pass} and {@code authToken} so options can be logged. */
    @Override
    public String toString() {
        return "ConnectOptions[verbose=" + verbose + ", pedantic=" + pedantic + ", tlsRequired=" + tlsRequired
            + ", authToken=" + (authToken == null ? null : "***") + ", user=" + user
            + ", pass=" + (pass == null ? null : "***") + ", name=" + name + ", lang=" + lang
            + ", version=" + version + ", protocol=" + protocol + ", echo=" + echo + ", headers=" + headers
            + ", noResponders=" + noResponders + ", nkey=" + nkey + ", sig=" + (sig == null ? null : "***") + "]";
    }

    /** A recursive-descent reader of one flat JSON object; nested values are checked and skipped. */
    private static final class Reader {
        private final String s;
        private int pos;

        Reader(String s) {
            this.s = s;
        }

        ConnectOptions connectOptions() {
            boolean verbose = true, pedantic = true, tlsRequired = false, echo = true, headers = false;
            boolean noResponders = false;
            String authToken = null, user = null, pass = null, name = null, lang = null, version = null;
            String nkey = null, sig = null;
            int protocol = 0;
            expect('{');
            if (!consume('}')) {
                do {
                    skipWhitespace();
                    String key = string();
                    expect(':');
                    skipWhitespace();
                    if (literal("null")) {
                        continue; // as Go's encoding/json: null leaves the default
                    }
                    switch (key) {
                        case "verbose" -> verbose = bool(key);
                        case "pedantic" -> pedantic = bool(key);
                        case "tls_required" -> tlsRequired = bool(key);
                        case "echo" -> echo = bool(key);
                        case "headers" -> headers = bool(key);
                        case "no_responders" -> noResponders = bool(key);
                        case "auth_token" -> authToken = string(key);
                        case "user" -> user = string(key);
                        case "pass" -> pass = string(key);
                        case "name" -> name = string(key);
                        case "lang" -> lang = string(key);
                        case "version" -> version = string(key);
                        case "protocol" -> protocol = integer(key);
                        case "nkey" -> nkey = string(key);
                        case "sig" -> sig = string(key);
                        default -> skipValue(0); // jwt and unknown fields
                    }
                } while (consume(','));
                expect('}');
            }
            skipWhitespace();
            if (pos != s.length()) {
                throw error("unexpected content after the object");
            }
            return new ConnectOptions(verbose, pedantic, tlsRequired, authToken, user, pass, name, lang, version,
                protocol, echo, headers, noResponders, nkey, sig);
        }

        private boolean bool(String key) {
            if (literal("true")) {
                return true;
            }
            if (literal("false")) {
                return false;
            }
            throw error("'" + key + "' must be a boolean");
        }

        private String string(String key) {
            if (peek() != '"') {
                throw error("'" + key + "' must be a string");
            }
            return string();
        }

        private int integer(String key) {
            int start = pos;
            if (peek() != '-' && !isDigit(peek())) {
                throw error("'" + key + "' must be an integer");
            }
            number();
            try {
                return Integer.parseInt(s, start, pos, 10);
            } catch (NumberFormatException e) {
                throw error("'" + key + "' must be an integer in int range");
            }
        }

        private void skipValue(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nesting deeper than " + MAX_DEPTH);
            }
            int c = peek();
            if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                pos++;
                if (consume(close)) {
                    return;
                }
                do {
                    if (c == '{') {
                        skipWhitespace();
                        string();
                        expect(':');
                    }
                    skipWhitespace();
                    skipValue(depth + 1);
                } while (consume(','));
                expect(close);
            } else if (c == '"') {
                string();
            } else if (c == '-' || isDigit(c)) {
                number();
            } else if (!literal("true") && !literal("false") && !literal("null")) {
                throw error("expected a value");
            }
        }

        /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
        private void number() {
            consumeChar('-');
            if (!consumeChar('0')) {
                digits();
            }
            if (consumeChar('.')) {
                digits();
            }
            if (consumeChar('e') || consumeChar('E')) {
                if (!consumeChar('+')) {
                    consumeChar('-');
                }
                digits();
            }
        }

        private void digits() {
            if (!isDigit(peek())) {
                throw error("expected a digit");
            }
            while (isDigit(peek())) {
                pos++;
            }
        }

        private String string() {
            if (!consumeChar('"')) {
                throw error("expected a string");
            }
            StringBuilder sb = new StringBuilder();
            while (true) {
                int c = next();
                if (c == '"') {
                    return sb.toString();
                } else if (c < 0x20) {
                    throw error(c < 0 ? "unterminated string" : "control character in string");
                } else if (c != '\\') {
                    sb.append((char) c);
                    continue;
                }
                int e = next();
                switch (e) {
                    case '"', '\\', '/' -> sb.append((char) e);
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        int code = 0;
                        for (int i = 0; i < 4; i++) {
                            int h = next();
                            int lower = h | 0x20;
                            int digit = isDigit(h) ? h - '0' : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
                            if (digit < 0) {
                                throw error("bad \\u escape");
                            }
                            code = code * 16 + digit;
                        }
                        sb.append((char) code);
                    }
                    default -> throw error("bad escape");
                }
            }
        }

        private boolean literal(String word) {
            if (s.startsWith(word, pos)) {
                pos += word.length();
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!consume(c)) {
                throw error("expected '" + c + "'");
            }
        }

        /** Skips whitespace, then consumes {@code c} if it is next. */
        private boolean consume(char c) {
            skipWhitespace();
            return consumeChar(c);
        }

        private boolean consumeChar(char c) {
            if (peek() == c) {
                pos++;
                return true;
            }
            return false;
        }

        private void skipWhitespace() {
            while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') {
                pos++;
            }
        }

        private int peek() {
            return pos < s.length() ? s.charAt(pos) : -1;
        }

        private int next() {
            int c = peek();
            pos++;
            return c;
        }

        private static boolean isDigit(int c) {
            return c >= '0' && c <= '9';
        }

        private IllegalArgumentException error(String problem) {
            int at = Math.min(pos, s.length());
            return new IllegalArgumentException("invalid CONNECT json: " + problem + " at offset " + at);
        }
    }
}
