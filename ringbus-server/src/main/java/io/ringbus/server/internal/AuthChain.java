package io.ringbus.server.internal;

import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.AuthenticationException;
import io.ringbus.server.Authenticator;
import io.ringbus.server.Identity;
import io.ringbus.server.ServerConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The server's authenticators in the order they are asked: the certificate mapping
 * ({@code verify_and_map}), NKEYs, tokens, users, then the plug-in. The first identity wins; an
 * {@link AuthenticationException} ends the chain with its reason; when every one says "not mine",
 * the client is refused for what it presented.
 *
 * <p>Threading: {@link #start} is called on a connection's event loop. The built-ins answer
 * there (a bcrypt check moves to the server's bounded {@link CostlyCheckPool}); the plug-in is
 * always called on a virtual thread ({@link #PLUGIN_CALLS}). Immutable, shared by every connection.
 */
final class AuthChain {
    /** Where the plug-in is called: virtual threads, never an event loop. */
    private static final ExecutorService PLUGIN_CALLS = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("ringbus-authenticator-", 0).factory());

    /** The outcome of one client's authentication: an identity, or the reason it was refused. */
    record Outcome(Identity identity, AuthFailure failure, String detail) {
        static Outcome refused(AuthFailure failure, String detail) {
            return new Outcome(null, failure, detail);
        }
    }

    /**
     * One client's authentication under way: its outcome, and its ticket on the costly-check pool.
     *
     * @param outcome already complete when no authenticator had to leave the event loop, never
     *                completed exceptionally
     * @param ticket  {@link CheckTicket#abandon() abandoned} when the client leaves first
     */
    record Attempt(CompletableFuture<Outcome> outcome, CheckTicket ticket) {
    }

    private final List<Authenticator> chain;
    private final boolean hasPlugin;
    private final boolean mapsCertificates;
    private final Duration timeout;
    private final CostlyCheckPool pool;

    private AuthChain(List<Authenticator> chain, boolean hasPlugin, boolean mapsCertificates, Duration timeout,
                      CostlyCheckPool pool) {
        this.chain = List.copyOf(chain);
        this.hasPlugin = hasPlugin;
        this.mapsCertificates = mapsCertificates;
        this.timeout = timeout;
        this.pool = pool;
    }

    /**
     * @param config the server's credentials and authenticator timeout
     * @param pool   where bcrypt checks run
     */
    static AuthChain of(ServerConfig config, CostlyCheckPool pool) {
        List<Authenticator> chain = new ArrayList<>();
        if (config.tlsVerifyAndMap()) {
            chain.add(new CertificateAuthenticator(config.users(), config.permissions(), !config.nkeys().isEmpty()));
        }
        if (!config.nkeys().isEmpty()) {
            chain.add(new NkeyAuthenticator(config.nkeys(), config.permissions()));
        }
        if (!config.tokens().isEmpty()) {
            chain.add(new TokenAuthenticator(config.tokens(), config.permissions()));
        }
        if (!config.users().isEmpty()) {
            chain.add(new PasswordAuthenticator(config.users(), config.permissions(), pool));
        }
        if (config.authenticator() != null) {
            chain.add(config.authenticator());
        }
        return new AuthChain(chain, config.authenticator() != null, config.tlsVerifyAndMap(),
                config.authenticatorTimeout(), pool);
    }

    /**
     * Starts asking the chain about a client, whose answer is wanted within the authenticator
     * timeout: a costly check not started by then never runs.
     *
     * @param request what the client presented
     * @return the attempt; abandon its ticket when the client leaves before the outcome
     */
    Attempt start(AuthRequest request) {
        CheckTicket ticket = pool.ticket(request.remote(), timeout);
        CompletableFuture<Identity> answer = from(0, request, ticket);
        if (!answer.isDone()) {
            answer = answer.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        return new Attempt(answer.handle((identity, error) -> error == null ? new Outcome(identity, null, null)
                : refusal(error)), ticket);
    }

    private CompletableFuture<Identity> from(int first, AuthRequest request, CheckTicket ticket) {
        for (int i = first; i < chain.size(); i++) {
            Authenticator authenticator = chain.get(i);
            CompletableFuture<Identity> answer = authenticator instanceof InlineAuthenticator inline
                    ? ask(() -> inline.authenticate(request, ticket))
                    : CompletableFuture.supplyAsync(() -> ask(() -> authenticator.authenticate(request)), PLUGIN_CALLS)
                    .thenCompose(stage -> stage);
            if (!answer.isDone()) {
                int next = i + 1;
                return answer.thenCompose(identity -> identity != null ? CompletableFuture.completedFuture(identity)
                        : from(next, request, ticket));
            }
            if (answer.isCompletedExceptionally() || answer.join() != null) {
                return answer;
            }
        }
        return CompletableFuture.failedFuture(unrecognised(request));
    }

    private static CompletableFuture<Identity> ask(Supplier<CompletionStage<Identity>> authenticator) {
        try {
            CompletionStage<Identity> stage = authenticator.get();
            return stage == null ? CompletableFuture.completedFuture(null) : stage.toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private AuthenticationException unrecognised(AuthRequest request) {
        if (hasPlugin) {
            return new AuthenticationException(AuthFailure.REFUSED, "refused by the authentication plug-in");
        }
        if (request.nkey() != null) {
            return new AuthenticationException(AuthFailure.UNKNOWN_NKEY, "unknown NKEY " + request.nkey());
        }
        if (request.token() != null) {
            return new AuthenticationException(AuthFailure.UNKNOWN_TOKEN, "unknown token");
        }
        if (request.user() != null) {
            return new AuthenticationException(AuthFailure.UNKNOWN_USER, "unknown user '" + request.user() + "'");
        }
        if (mapsCertificates && !request.certificates().isEmpty()) {
            return new AuthenticationException(AuthFailure.CERTIFICATE_NOT_MAPPED, "certificate "
                    + request.certificates().getFirst().getSubjectX500Principal().getName() + " names no user");
        }
        return new AuthenticationException(AuthFailure.NO_CREDENTIALS, "no credentials");
    }

    private static Outcome refusal(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof AuthenticationException refused) {
            return Outcome.refused(refused.reason(), refused.getMessage());
        }
        if (cause instanceof TimeoutException) {
            return Outcome.refused(AuthFailure.AUTHENTICATOR_TIMEOUT, "no answer within the authenticator timeout");
        }
        return Outcome.refused(AuthFailure.AUTHENTICATOR_ERROR, cause.toString());
    }
}
