package io.ringbus.server.internal;

import com.fasterxml.jackson.core.ErrorReportConfiguration;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;

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
     * The last of duplicate fields wins, as in Go's encoding/json.
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

    /**
     * Reads one flat JSON object with jackson-core's streaming parser (no data binding); nested
     * values of unknown fields are checked and skipped, {@link #MAX_DEPTH} deep at most.
     */
    private static final class Reader {
        /** Strict RFC 8259 (jackson-core's defaults: no comments, quotes or NaN of other dialects). */
        private static final JsonFactory JSON = JsonFactory.builder()
                // The control line that holds the object is bounded already: no second limit on its
                // strings and numbers (an unknown field's value is skipped whatever its length).
                .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(Integer.MAX_VALUE)
                        .maxStringLength(Integer.MAX_VALUE).maxNameLength(Integer.MAX_VALUE).build())
                // Messages quote no token of the input: it may hold a password (they are logged).
                .errorReportConfiguration(ErrorReportConfiguration.builder().maxErrorTokenLength(0)
                        .maxRawContentLength(0).build())
                .build();

        private final String s;
        private JsonParser parser;

        Reader(String s) {
            this.s = s;
        }

        ConnectOptions connectOptions() {
            try (JsonParser p = JSON.createParser(s)) {
                parser = p;
                return read();
            } catch (JsonProcessingException e) {
                JsonLocation at = e.getLocation();
                String problem = e.getOriginalMessage();
                int marker = problem.indexOf(" (start marker at");
                throw error(marker < 0 ? problem : problem.substring(0, marker), at == null ? -1 : at.getCharOffset());
            } catch (IOException e) {
                throw error(e.getMessage(), -1);
            }
        }

        private ConnectOptions read() throws IOException {
            boolean verbose = true, pedantic = true, tlsRequired = false, echo = true, headers = false;
            boolean noResponders = false;
            String authToken = null, user = null, pass = null, name = null, lang = null, version = null;
            String nkey = null, sig = null;
            int protocol = 0;
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw error("expected '{'");
            }
            for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
                if (parser.nextToken() == JsonToken.VALUE_NULL) {
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
                    default -> skipValue(); // jwt and unknown fields
                }
            }
            // nextFieldName returned null: the object's END_OBJECT, or a token that ends it wrongly.
            if (parser.currentToken() != JsonToken.END_OBJECT) {
                throw error("expected a field name");
            }
            JsonToken after;
            try {
                after = parser.nextToken();
            } catch (JsonProcessingException trailing) {
                after = JsonToken.NOT_AVAILABLE;
            }
            if (after != null) {
                throw error("unexpected content after the object");
            }
            return new ConnectOptions(verbose, pedantic, tlsRequired, authToken, user, pass, name, lang, version,
                protocol, echo, headers, noResponders, nkey, sig);
        }

        private boolean bool(String key) {
            JsonToken token = parser.currentToken();
            if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
                throw error("'" + key + "' must be a boolean");
            }
            return token == JsonToken.VALUE_TRUE;
        }

        private String string(String key) throws IOException {
            if (parser.currentToken() != JsonToken.VALUE_STRING) {
                throw error("'" + key + "' must be a string");
            }
            return parser.getText();
        }

        private int integer(String key) throws IOException {
            if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT) {
                throw error("'" + key + "' must be an integer");
            }
            if (parser.getNumberType() != JsonParser.NumberType.INT) {
                throw error("'" + key + "' must be an integer in int range");
            }
            return parser.getIntValue();
        }

        /**
         * Skips the value the parser is on, its nested values read and checked. A value inside
         * {@link #MAX_DEPTH} enclosing objects or arrays (below the CONNECT object) is refused.
         */
        private void skipValue() throws IOException {
            JsonToken token = parser.currentToken();
            if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY) {
                return; // a scalar: read already
            }
            int open = 1;
            while (open > 0) {
                token = parser.nextToken();
                if (token == null) {
                    throw error("unexpected end of input");
                }
                if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                    open--;
                } else if (token != JsonToken.FIELD_NAME) {
                    if (open > MAX_DEPTH) {
                        throw error("nesting deeper than " + MAX_DEPTH);
                    }
                    if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                        open++;
                    }
                }
            }
        }

        private IllegalArgumentException error(String problem) {
            JsonLocation at = parser.currentTokenLocation();
            return error(problem, at == null ? -1 : at.getCharOffset());
        }

        private IllegalArgumentException error(String problem, long offset) {
            return new IllegalArgumentException("invalid CONNECT json: " + problem
                + (offset < 0 ? "" : " at offset " + Math.min(offset, s.length())));
        }
    }
}
