package io.ringbus.server.internal;

import io.ringbus.server.Authenticator;

/**
 * A built-in authenticator cheap enough to be asked on the connection's event loop: it compares
 * what the client sent with configuration in memory, and anything slow (a bcrypt check) it hands
 * to another thread and answers through its stage.
 */
interface InlineAuthenticator extends Authenticator {
}
