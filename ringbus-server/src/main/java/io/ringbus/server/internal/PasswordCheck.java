package io.ringbus.server.internal;

import io.ringbus.server.ServerConfig;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;

/**
 * Whether a password a client gave matches a configured user's, for the NATS port and the
 * monitor alike: a plain password is compared at once, in constant time; a bcrypt hash is
 * checked on the {@link CostlyCheckPool}, never on the thread that asks (an event loop).
 */
public final class PasswordCheck {
    private PasswordCheck() {
    }

    /**
     * @param credential the configured user's
     * @param given      what the client sent, {@code null} as empty
     * @param pool       where a bcrypt check runs
     * @param ticket     the client's claim on the pool
     * @return whether it matches: complete at once for a plain password; for bcrypt, the pool's
     *         answer (which may fail with the pool's refusal, timeout or cancellation)
     */
    public static CompletableFuture<Boolean> matches(ServerConfig.UserCredential credential, String given,
                                                     CostlyCheckPool pool, CheckTicket ticket) {
        String password = given == null ? "" : given;
        if (credential.bcrypt()) {
            return pool.submit(ticket, () -> {
                boolean matches = OpenBSDBCrypt.checkPassword(credential.password(), password.toCharArray());
                if (!matches) {
                    pool.failed(ticket); // its source's next checks wait for the other sources'
                }
                return matches;
            });
        }
        return CompletableFuture.completedFuture(MessageDigest.isEqual(password.getBytes(StandardCharsets.UTF_8),
                credential.password().getBytes(StandardCharsets.UTF_8)));
    }
}
