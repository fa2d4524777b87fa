package io.ringbus.bench.hostile;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * The users, permissions and durable subjects every attack runs against, written once in each
 * server's own configuration format so that both servers are given the same rules:
 * <ul>
 *   <li>{@code alice}: a plain password, PUBLIC: the healthy client whose round trip is measured;
 *   <li>{@code carol}: a bcrypt password (cost {@value #BCRYPT_COST}, nats-server's default),
 *       PUBLIC: the valid login that must keep succeeding, and the name a bcrypt flood guesses;
 *   <li>{@code mallory}: publish denied on {@code >}, PUBLIC;
 *   <li>{@code root}: ROOT on ringbus, a plain user on nats-server;
 *   <li>{@code priv.>} is PRIVATE on ringbus; {@code orders.>} is a durable subject (a JetStream
 *       stream {@value #STREAM} on nats-server) held to {@value #STREAM_MAX_BYTES} bytes;
 *   <li>the store holds at most {@value #STORE_MAX_BYTES} bytes (ringbus's {@code storage.max_bytes},
 *       nats-server's {@code max_file_store}), memory streams {@value #MEMORY_MAX_BYTES} bytes
 *       ({@code max_memory_store}).
 * </ul>
 */
final class HostileConfig {
    /** bcrypt cost of carol's password: nats-server's {@code DefaultCost}. */
    static final int BCRYPT_COST = 11;
    /** The durable subjects. */
    static final String DURABLE = "orders.>";
    /** The stream nats-server stores {@link #DURABLE} in. */
    static final String STREAM = "ORDERS";
    /** The stream's size limit on both servers. */
    static final long STREAM_MAX_BYTES = 4L << 20;
    /** The store's byte limit on both servers: what a client that fills it reaches. */
    static final long STORE_MAX_BYTES = 256L << 20;
    /** Memory streams' byte limit on both servers. */
    static final long MEMORY_MAX_BYTES = 64L << 20;
    /** carol's real password. */
    static final String CAROL_PASSWORD = "carol-secret";

    private final String carolHash;
    private final int authTimeoutSeconds;

    private HostileConfig(String carolHash, int authTimeoutSeconds) {
        this.carolHash = carolHash;
        this.authTimeoutSeconds = authTimeoutSeconds;
    }

    /** @return a configuration with a fresh bcrypt hash of carol's password, the servers' default auth timeouts */
    static HostileConfig create() {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return new HostileConfig(OpenBSDBCrypt.generate("2a", CAROL_PASSWORD.toCharArray(), salt, BCRYPT_COST), 0);
    }

    /**
     * @param seconds how long a client may take to log in, and a credential check may take, on
     *                both servers (tests on a busy machine: a cold JVM's first bcrypt check alone
     *                may pass the 2 s default)
     * @return this configuration with that auth timeout
     */
    HostileConfig withAuthTimeout(int seconds) {
        return new HostileConfig(carolHash, seconds);
    }

    /**
     * @param user {@code alice}, {@code carol}, {@code mallory} or {@code root}
     * @return the CONNECT members that log {@code user} in with its right password
     */
    static String login(String user) {
        String password = user.equals("carol") ? CAROL_PASSWORD : user + "-secret";
        return "\"user\":\"" + user + "\",\"pass\":\"" + password + "\"";
    }

    /**
     * Writes ringbus-server's properties file.
     *
     * @param dir where the file and the store go
     * @return the file
     */
    Path writeRingbus(Path dir) throws IOException {
        String text = String.join("\n",
                "user.alice=alice-secret:PUBLIC",
                "user.carol=" + carolHash + ":PUBLIC",
                "user.mallory=mallory-secret:PUBLIC",
                "user.root=root-secret:ROOT",
                "permissions.mallory.publish.deny=>",
                "subject.priv.>=PRIVATE",
                "storage.dir=" + dir.resolve("ringbus-store"),
                "storage.durable." + DURABLE + "=PUBLIC name=orders max_bytes=" + STREAM_MAX_BYTES,
                "storage.max_bytes=" + STORE_MAX_BYTES,
                "storage.max_memory=" + MEMORY_MAX_BYTES,
                authTimeoutSeconds == 0 ? "" : "auth_timeout=" + authTimeoutSeconds + "s",
                authTimeoutSeconds == 0 ? "" : "authenticator_timeout=" + authTimeoutSeconds + "s",
                "");
        Path file = dir.resolve("ringbus-hostile.properties");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * Writes nats-server's configuration file (JetStream on, store under {@code dir}).
     *
     * @param dir where the file and the store go
     * @return the file
     */
    Path writeNats(Path dir) throws IOException {
        String text = String.join("\n",
                "authorization {",
                "  users = [",
                "    {user: alice, password: \"alice-secret\"}",
                "    {user: carol, password: \"" + carolHash + "\"}",
                "    {user: mallory, password: \"mallory-secret\", permissions: {publish: {deny: [\">\"]}}}",
                "    {user: root, password: \"root-secret\"}",
                "  ]",
                authTimeoutSeconds == 0 ? "" : "  timeout: " + authTimeoutSeconds,
                "}",
                "jetstream {",
                "  store_dir: \"" + dir.resolve("nats-store") + "\"",
                "  max_file_store: " + STORE_MAX_BYTES,
                "  max_memory_store: " + MEMORY_MAX_BYTES,
                "}",
                "");
        Path file = dir.resolve("nats-hostile.conf");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * @return the {@code $JS.API.STREAM.CREATE} request body for {@link #STREAM} on nats-server
     */
    static String streamCreateRequest() {
        return "{\"name\":\"" + STREAM + "\",\"subjects\":[\"" + DURABLE + "\"],\"storage\":\"file\",\"max_bytes\":"
                + STREAM_MAX_BYTES + ",\"duplicate_window\":120000000000}";
    }
}
