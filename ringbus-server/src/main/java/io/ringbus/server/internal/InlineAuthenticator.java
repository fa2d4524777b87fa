package io.ringbus.server.internal;

import io.ringbus.server.AuthRequest;
import io.ringbus.server.Authenticator;
import io.ringbus.server.Identity;

import java.util.concurrent.CompletionStage;

/**
 * A built-in authenticator cheap enough to be asked on the connection's event loop: it compares
 * what the client sent with configuration in memory, and anything costly (a bcrypt check) it
 * hands to the {@link CostlyCheckPool} under the client's ticket and answers through its stage.
 */
interface InlineAuthenticator extends Authenticator {
    /**
     * Asked by the chain on the connection's event loop.
     *
     * @param request what the client presented
     * @param ticket  the client's claim on the costly-check pool
     * @return as {@link #authenticate(AuthRequest)}
     */
    default CompletionStage<Identity> authenticate(AuthRequest request, CheckTicket ticket) {
        return authenticate(request);
    }
}
