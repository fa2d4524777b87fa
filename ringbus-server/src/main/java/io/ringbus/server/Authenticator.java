package io.ringbus.server;

import java.util.concurrent.CompletionStage;

/**
 * Decides who a client is from its CONNECT and its TLS session. The server asks a chain of them,
 * in order: the built-in certificate mapping ({@code verify_and_map}), NKEYs, tokens and users
 * (each an implementation of this interface, configured by {@link ServerConfig.Builder}), then
 * the plug-in given to {@link ServerConfig.Builder#authenticator}, for example one that asks a
 * directory.
 *
 * <p><b>Answers.</b> An identity accepts the client. {@code null} says the client is not one of
 * this authenticator's (no credential of its kind, or one it does not know): the next one is
 * asked, and when none is left the client is refused. An {@link AuthenticationException} refuses
 * it at once, with that reason. Anything else thrown, or a late answer, refuses it too
 * ({@link AuthFailure#AUTHENTICATOR_ERROR}, {@link AuthFailure#AUTHENTICATOR_TIMEOUT}).
 *
 * <p><b>Threading.</b> The plug-in is called on a virtual thread, never on a Netty event loop, so it
 * may block; it may also answer later through the returned stage. The server waits for the answer
 * at most the configured timeout, without holding any thread. While it waits, the client's further
 * input is not read.
 */
@FunctionalInterface
public interface Authenticator {
    /**
     * @param request what the client presented
     * @return a stage with the identity to give the client, or with {@code null} when the client is
     *         not one of this authenticator's
     */
    CompletionStage<Identity> authenticate(AuthRequest request);
}
