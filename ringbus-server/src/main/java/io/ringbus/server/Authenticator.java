package io.ringbus.server;

import java.util.concurrent.CompletionStage;

/**
 * An authentication plug-in: decides who a client is from its CONNECT and its TLS session, for
 * example by asking a directory. Consulted when none of the configured tokens, users, NKEYs or
 * certificate users matches ({@link ServerConfig.Builder#authenticator}).
 *
 * <p><b>Threading.</b> Called on a virtual thread, never on a Netty event loop, so it may block; it
 * may also answer later through the returned stage. The server waits for the answer at most the
 * configured timeout, without holding any thread, then refuses. While it waits, the client's
 * further input is not read. Whatever it throws, or an exceptional stage, refuses the client.
 */
@FunctionalInterface
public interface Authenticator {
    /**
     * @param request what the client presented
     * @return the identity to give the client, or a stage completing with {@code null} to refuse it
     */
    CompletionStage<Identity> authenticate(AuthRequest request);
}
