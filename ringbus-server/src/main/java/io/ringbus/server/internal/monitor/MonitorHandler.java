package io.ringbus.server.internal.monitor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerRequests;
import io.ringbus.server.internal.CheckTicket;
import io.ringbus.server.internal.CostlyCheckPool;
import io.ringbus.server.internal.FatalErrors;
import io.ringbus.server.spi.MonitorEndpoint;
import io.ringbus.server.spi.MonitorJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Answers monitoring requests, on the monitor's event loop (never a NATS I/O thread). Read-only:
 * GET and HEAD, anything else is 405. With credentials configured every path but
 * {@code /healthz} (which reveals nothing) needs one (401 with {@code WWW-Authenticate}
 * otherwise), and a credential sees only what its scope may: {@code /connz} and {@code /subsz}
 * list only clients and subscriptions of its scope and below, {@code /varz}'s
 * {@code ringbus.storage} only streams and consumers of its scope and below and the store's
 * directory only to ROOT; the dashboard, {@code /dashz} and
 * {@code /metrics} (pattern tags, subjects of blocked handlers) need a ROOT credential (403 otherwise).
 *
 * <p>A bcrypt password is checked on the server's {@link CostlyCheckPool} (never on this loop),
 * under the client's address as its source: meanwhile the connection reads nothing, and requests
 * it had already sent wait (in the {@code FlowControlHandler} before this one), so one connection
 * has at most one check under way and its answers keep their order. A connection remembers its
 * last credential and the answer, so pipelined requests with one header cost one check. A check
 * the pool refuses (the source's queue is full) or that times out is answered 503 with
 * {@code Retry-After}; {@code /healthz} needs no credential and so never waits for a check.
 *
 * <p>A path an extension serves ({@link MonitorEndpoint}) is asked on this loop and may answer
 * later, from its own thread: meanwhile the connection reads nothing more (as during a credential
 * check), so its answers keep their order; past {@link #EXTENSION_TIMEOUT_SECONDS} it is answered
 * {@code 503} with {@code Retry-After}. Its JSON is written here, bounded like every response.
 *
 * <pre>
 * /            the dashboard page          text/html
 * /dashz       the dashboard's data        application/json
 * /varz /connz /subsz /healthz /jsz        application/json, nats-server's fields
 * /metrics     Prometheus text 0.0.4, or OpenMetrics when the Accept header asks for it
 * </pre>
 */
@ChannelHandler.Sharable
final class MonitorHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(MonitorHandler.class);
    private static final String JSON = "application/json";
    /** The Prometheus text format 0.0.4, what Prometheus scrapes by default. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    /** Paths counted in {@code http_req_stats}, as nats-server counts them: every path the monitor serves. */
    private static final Set<String> COUNTED = Set.copyOf(ServerRequests.MONITOR_PATHS);
    /** Paths that show subjects or pattern tags of every scope. */
    private static final Set<String> ROOT_ONLY = Set.of("/", "/index.html", "/dashz", "/metrics");

    /** The connection's last {@code Authorization} header and its scope ({@code null}: refused). */
    private record Remembered(String authorization, Scope scope) {
    }

    private static final AttributeKey<Remembered> REMEMBERED = AttributeKey.valueOf("ringbus.monitor.credential");
    /** The connection's check under way, abandoned if it closes first. */
    private static final AttributeKey<CheckTicket> CHECKING = AttributeKey.valueOf("ringbus.monitor.checking");
    /** Set while an extension's answer to the connection is under way. */
    private static final AttributeKey<Boolean> ANSWERING = AttributeKey.valueOf("ringbus.monitor.answering");
    /** How long an extension's path may take to answer before it is answered 503. */
    static final long EXTENSION_TIMEOUT_SECONDS = 5;

    private final MonitorView view;
    private final MonitorAuth auth;
    private final CostlyCheckPool pool;
    private final Duration checkTimeout;
    private final byte[] dashboard;

    MonitorHandler(MonitorView view, byte[] dashboard) {
        this.view = view;
        this.pool = view.server.checks();
        this.auth = new MonitorAuth(view.server.config(), pool);
        this.checkTimeout = view.server.config().authenticatorTimeout();
        this.dashboard = dashboard;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!request.decoderResult().isSuccess()) {
            send(ctx, request, text(HttpResponseStatus.BAD_REQUEST, "bad request\n"), false);
            return;
        }
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "read-only: GET or HEAD\n");
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            send(ctx, request, response, keepAlive);
            return;
        }
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String path = query.path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.equals("/healthz")) {
            answer(ctx, request, path, query, Scope.PUBLIC, keepAlive); // reveals nothing: no credential, no wait
            return;
        }
        if (!auth.required()) {
            answer(ctx, request, path, query, Scope.ROOT, keepAlive); // the monitor binds 127.0.0.1 by default
            return;
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        Remembered remembered = ctx.channel().attr(REMEMBERED).get();
        if (remembered != null && remembered.authorization().equals(authorization)) {
            answer(ctx, request, path, query, remembered.scope(), keepAlive);
            return;
        }
        CheckTicket ticket = pool.ticket(ctx.channel().remoteAddress(), checkTimeout);
        CompletableFuture<Scope> viewer = auth.scopeOf(authorization, ticket);
        if (viewer.isDone()) {
            checked(ctx, request, path, query, authorization, viewer, keepAlive);
            return;
        }
        // A bcrypt check: read nothing more from this client until it is answered.
        ctx.channel().config().setAutoRead(false);
        ctx.channel().attr(CHECKING).set(ticket);
        request.retain();
        String checkedPath = path;
        viewer.whenComplete((scope, error) -> ctx.executor().execute(() -> {
            try {
                ctx.channel().attr(CHECKING).set(null);
                if (ctx.channel().isActive()) {
                    checked(ctx, request, checkedPath, query, authorization, viewer, keepAlive);
                    if (ctx.channel().attr(ANSWERING).get() == null) {
                        ctx.channel().config().setAutoRead(true); // the next request, waiting or to be read
                    }
                }
            } catch (RuntimeException e) {
                exceptionCaught(ctx, e);
            } finally {
                request.release();
            }
        }));
    }

    /** Answers a request whose credential check ended: remembered when it decided, 503 when it could not run. */
    private void checked(ChannelHandlerContext ctx, FullHttpRequest request, String path, QueryStringDecoder query,
                         String authorization, CompletableFuture<Scope> viewer, boolean keepAlive) {
        Scope scope;
        try {
            scope = viewer.join();
        } catch (CompletionException | CancellationException notRun) {
            FullHttpResponse busy = text(HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "credential check not run (too many waiting for this address, or too late); retry\n");
            busy.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
            send(ctx, request, busy, keepAlive);
            return;
        }
        if (authorization != null) {
            ctx.channel().attr(REMEMBERED).set(new Remembered(authorization, scope));
        }
        answer(ctx, request, path, query, scope, keepAlive);
    }

    /** Answers a request for {@code path} as {@code viewer} sees it; {@code null}: no credential, 401. */
    private void answer(ChannelHandlerContext ctx, FullHttpRequest request, String path, QueryStringDecoder query,
                        Scope viewer, boolean keepAlive) {
        if (viewer == null) {
            FullHttpResponse response = text(HttpResponseStatus.UNAUTHORIZED, "credentials required\n");
            response.headers().add(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"ringbus\"");
            response.headers().add(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"ringbus\", charset=\"UTF-8\"");
            send(ctx, request, response, keepAlive);
            return;
        }
        if (viewer != Scope.ROOT && ROOT_ONLY.contains(path)) {
            send(ctx, request, text(HttpResponseStatus.FORBIDDEN, path + " needs a ROOT credential\n"), keepAlive);
            return;
        }
        MonitorEndpoint endpoint = view.extensions.endpoint(path);
        if (COUNTED.contains(path) || endpoint != null) {
            view.requestCounts.merge(path, 1L, Long::sum);
        }
        if (endpoint != null) {
            extension(ctx, request, new ParsedQuery(path, query, viewer), endpoint, keepAlive);
            return;
        }
        FullHttpResponse response;
        try {
            response = route(path, query, request, viewer);
        } catch (IllegalArgumentException badParameter) {
            response = json(HttpResponseStatus.BAD_REQUEST, "{\"error\":" + quoted(badParameter.getMessage()) + "}");
        } catch (RuntimeException e) {
            LOG.warn("monitor: {} failed", path, e);
            response = json(HttpResponseStatus.INTERNAL_SERVER_ERROR, "{\"error\":\"internal error\"}");
        }
        send(ctx, request, response, keepAlive);
    }

    private FullHttpResponse route(String path, QueryStringDecoder query, FullHttpRequest request, Scope viewer) {
        return switch (path) {
            case "/", "/index.html" -> response(HttpResponseStatus.OK, "text/html; charset=utf-8",
                    Unpooled.wrappedBuffer(dashboard));
            case "/varz" -> json(HttpResponseStatus.OK, Varz.write(view, viewer));
            case "/connz" -> json(HttpResponseStatus.OK, Connz.write(view, query, viewer));
            case "/subsz" -> json(HttpResponseStatus.OK, Subsz.write(view, query, viewer));
            case "/healthz" -> json(HttpResponseStatus.OK, "{\"status\":\"ok\"}");
            case "/dashz" -> json(HttpResponseStatus.OK, Dashz.write(view));
            case "/metrics" -> metrics(request.headers().get(HttpHeaderNames.ACCEPT));
            case "/jsz" -> json(HttpResponseStatus.OK, Jsz.disabled(view, new ParsedQuery(path, query, viewer)));
            default -> text(HttpResponseStatus.NOT_FOUND, "not found; see " + String.join(" ", paths())
                    + " and the dashboard at /\n");
        };
    }

    /** @return every path served but {@code /}: the server's, then the extensions' new ones */
    private List<String> paths() {
        List<String> paths = new ArrayList<>(ServerRequests.MONITOR_PATHS.subList(1,
                ServerRequests.MONITOR_PATHS.size()));
        view.extensions.paths().stream().filter(path -> !paths.contains(path)).forEach(paths::add);
        return paths;
    }

    /**
     * Answers from an extension's endpoint: at once when its stage is already complete, else once
     * it completes or times out, reading nothing more from the connection meanwhile.
     */
    private void extension(ChannelHandlerContext ctx, FullHttpRequest request, ParsedQuery query,
                           MonitorEndpoint endpoint, boolean keepAlive) {
        CompletableFuture<MonitorJson> answer;
        try {
            answer = endpoint.answer(query).toCompletableFuture();
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        if (answer.isDone()) {
            send(ctx, request, extensionResponse(query.path(), answer), keepAlive);
            return;
        }
        ctx.channel().config().setAutoRead(false);
        ctx.channel().attr(ANSWERING).set(Boolean.TRUE);
        request.retain();
        CompletableFuture<MonitorJson> bounded = answer.copy().orTimeout(EXTENSION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        bounded.whenComplete((json, error) -> ctx.executor().execute(() -> {
            try {
                ctx.channel().attr(ANSWERING).set(null);
                if (ctx.channel().isActive()) {
                    send(ctx, request, extensionResponse(query.path(), bounded), keepAlive);
                    ctx.channel().config().setAutoRead(true); // the next request, waiting or to be read
                }
            } catch (RuntimeException e) {
                exceptionCaught(ctx, e);
            } finally {
                request.release();
            }
        }));
    }

    /** The response to a completed extension answer: its JSON, 400, 503 (timed out) or 500. */
    private static FullHttpResponse extensionResponse(String path, CompletableFuture<MonitorJson> answer) {
        try {
            MonitorJson body = answer.join();
            JsonResponse json = new JsonResponse();
            body.write(json.forExtension());
            return json(HttpResponseStatus.OK, json.toJson());
        } catch (CompletionException | CancellationException failed) {
            Throwable cause = failed.getCause() == null ? failed : failed.getCause();
            if (cause instanceof IllegalArgumentException badParameter) {
                return json(HttpResponseStatus.BAD_REQUEST, "{\"error\":" + quoted(badParameter.getMessage()) + "}");
            }
            if (cause instanceof TimeoutException) {
                FullHttpResponse busy = text(HttpResponseStatus.SERVICE_UNAVAILABLE, path + " did not answer within "
                        + EXTENSION_TIMEOUT_SECONDS + " s; retry\n");
                busy.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
                return busy;
            }
            LOG.warn("monitor: {} failed", path, cause);
        } catch (IllegalArgumentException tooLarge) {
            return json(HttpResponseStatus.BAD_REQUEST, "{\"error\":" + quoted(tooLarge.getMessage()) + "}");
        } catch (IOException | RuntimeException e) {
            LOG.warn("monitor: {} failed", path, e);
        }
        return json(HttpResponseStatus.INTERNAL_SERVER_ERROR, "{\"error\":\"internal error\"}");
    }

    private FullHttpResponse metrics(String accept) {
        boolean openMetrics = accept != null && accept.contains("application/openmetrics-text");
        String contentType = openMetrics ? OPENMETRICS_TEXT : PROMETHEUS_TEXT;
        String body = view.registry.scrape(contentType);
        return response(HttpResponseStatus.OK, contentType, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    private static FullHttpResponse json(HttpResponseStatus status, String body) {
        return response(status, JSON, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body) {
        return response(status, "text/plain; charset=utf-8", Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    private static FullHttpResponse response(HttpResponseStatus status, String contentType, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set("X-Content-Type-Options", "nosniff")
                .set("X-Frame-Options", "DENY")
                .set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; "
                        + "style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
        return response;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response,
                             boolean keepAlive) {
        HttpUtil.setContentLength(response, response.content().readableBytes());
        if (request.method().equals(HttpMethod.HEAD)) {
            // Same headers as GET, no body.
            response.content().clear();
        }
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response, ctx.voidPromise());
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static String quoted(String text) {
        return new JsonResponse().value(text).toJson();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        CheckTicket checking = ctx.channel().attr(CHECKING).getAndSet(null);
        if (checking != null) {
            checking.abandon(); // the client left: its check, if not started, never runs
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // An OutOfMemoryError here is the server's, handled as everywhere (FatalErrors), never swallowed.
        FatalErrors.check(cause, "the monitor");
        LOG.debug("monitor connection {} failed; closing", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
