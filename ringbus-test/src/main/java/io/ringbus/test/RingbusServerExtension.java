package io.ringbus.test;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The JUnit 5 extension behind {@link RingbusServerTest}: starts an in-JVM ringbus-server on a
 * free loopback port for a test class (or, per-method, for each test), hands it to tests as a
 * {@link RingbusServerHandle} or a {@link RingbusUrl @RingbusUrl} URL, and closes it (server,
 * then broker) when the class (or method) is done, through JUnit's extension store.
 *
 * <p>Programmatic form, for settings the annotation does not offer:
 * <pre>{@code
 * @RegisterExtension
 * static RingbusServerExtension nats = RingbusServerExtension.builder()
 *         .token("s3cret")
 *         .server(config -> config.maxSubscriptions(100))
 *         .build();
 * }</pre>
 *
 * <p>Registered on a {@code static} field the server lives for the class; on an instance field
 * JUnit registers the extension after the class has started, so use {@link Builder#perMethod()}
 * there. {@code @Nested} classes share the enclosing class's server. Safe with JUnit's parallel
 * execution: each class (or method) has its own server, kept in its own extension store.
 */
public final class RingbusServerExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(RingbusServerExtension.class);
    private static final String KEY = "server";

    private final ServerSettings settings;
    /** The server started last, for {@link #handle()}; cleared when it closes. */
    private volatile RingbusServerHandle last;

    /** The form {@link RingbusServerTest} registers: its settings are read from the annotation. */
    public RingbusServerExtension() {
        this.settings = null;
    }

    private RingbusServerExtension(ServerSettings settings) {
        this.settings = settings;
    }

    /** @return a builder with the defaults of {@link RingbusServerTest} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the class's server, unless the servers are per method or an enclosing class has one,
     * and sets the class's static {@link RingbusUrl} fields.
     *
     * @param context the test class's context
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        ServerSettings s = settings(context);
        if (s.perMethod()) {
            return;
        }
        RingbusServerHandle handle = context.getStore(NAMESPACE).get(KEY, ServerResource.class) == null
                ? start(context, s) : handle(context);
        injectFields(context.getRequiredTestClass(), null, handle);
    }

    /**
     * Starts the test's own server when the servers are per method, and sets the test instance's
     * {@link RingbusUrl} fields.
     *
     * @param context the test method's context
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        RingbusServerHandle handle = settings(context).perMethod() ? start(context, settings(context))
                : handle(context);
        for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
            injectFields(instance.getClass(), instance, handle);
        }
    }

    /**
     * @param parameter a parameter of a test, lifecycle method or constructor
     * @param context   its context
     * @return whether it is a {@link RingbusServerHandle} or a {@link RingbusUrl} {@code String}
     */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == RingbusServerHandle.class || (type == String.class && parameter.isAnnotated(RingbusUrl.class));
    }

    /**
     * @param parameter a parameter {@link #supportsParameter} accepted
     * @param context   its context
     * @return the running server, or its URL
     * @throws ParameterResolutionException when no server runs yet (a constructor or
     *                                      {@code @BeforeAll} parameter with per-method servers)
     */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ServerResource resource = context.getStore(NAMESPACE).get(KEY, ServerResource.class);
        if (resource == null) {
            throw new ParameterResolutionException("no ringbus server is running for " + parameter.getDeclaringExecutable()
                    + ": with per-method servers, only test methods and @BeforeEach/@AfterEach methods get one");
        }
        return parameter.getParameter().getType() == RingbusServerHandle.class ? resource.handle
                : resource.handle.url();
    }

    /**
     * The server of the class or method running now, for a {@code static} field registration.
     * With parallel per-method servers, prefer a {@link RingbusServerHandle} parameter.
     *
     * @return the server this extension started last
     * @throws IllegalStateException when it has not started one, or closed it
     */
    public RingbusServerHandle handle() {
        RingbusServerHandle current = last;
        if (current == null) {
            throw new IllegalStateException("no ringbus server is running: the extension has not started one yet");
        }
        return current;
    }

    /** @return {@code handle().url()}, {@code nats://127.0.0.1:<port>} */
    public String url() {
        return handle().url();
    }


    private RingbusServerHandle start(ExtensionContext context, ServerSettings s) {
        RingbusServerHandle handle = s.start();
        context.getStore(NAMESPACE).put(KEY, new ServerResource(this, handle));
        last = handle;
        return handle;
    }

    private static RingbusServerHandle handle(ExtensionContext context) {
        ServerResource resource = context.getStore(NAMESPACE).get(KEY, ServerResource.class);
        if (resource == null) {
            throw new ExtensionConfigurationException("no ringbus server for " + context.getUniqueId()
                    + ": register RingbusServerExtension on a static field, or use perMethod()");
        }
        return resource.handle;
    }

    private ServerSettings settings(ExtensionContext context) {
        if (settings != null) {
            return settings;
        }
        for (Class<?> c = context.getRequiredTestClass(); c != null; c = c.getEnclosingClass()) {
            // also finds it on a superclass and in an annotation the user composed with it
            Optional<RingbusServerTest> annotation = AnnotationSupport.findAnnotation(c, RingbusServerTest.class);
            if (annotation.isPresent()) {
                try {
                    return ServerSettings.of(annotation.get());
                } catch (IllegalArgumentException e) {
                    throw new ExtensionConfigurationException("@RingbusServerTest on " + c.getName() + ": "
                            + e.getMessage(), e);
                }
            }
        }
        throw new ExtensionConfigurationException("RingbusServerExtension registered without settings on "
                + context.getRequiredTestClass().getName() + ": annotate it @RingbusServerTest, or register "
                + "RingbusServerExtension.builder()...build()");
    }

    private static void injectFields(Class<?> type, Object instance, RingbusServerHandle handle) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (!field.isAnnotationPresent(RingbusUrl.class) || Modifier.isStatic(field.getModifiers())
                        != (instance == null)) {
                    continue;
                }
                if (field.getType() != String.class || Modifier.isFinal(field.getModifiers())) {
                    throw new ExtensionConfigurationException("@RingbusUrl field " + field
                            + " must be a non-final String");
                }
                try {
                    field.setAccessible(true);
                    field.set(instance, handle.url());
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new ExtensionConfigurationException("cannot set @RingbusUrl field " + field
                            + " (in a named module, open its package to io.ringbus.test): " + e, e);
                }
            }
        }
    }

    /** Closes the server when JUnit closes the store of the context that started it. */
    private static final class ServerResource implements ExtensionContext.Store.CloseableResource {
        private final RingbusServerExtension owner;
        private final RingbusServerHandle handle;

        ServerResource(RingbusServerExtension owner, RingbusServerHandle handle) {
            this.owner = owner;
            this.handle = handle;
        }

        @Override
        public void close() {
            if (owner.last == handle) {
                owner.last = null;
            }
            handle.close();
        }
    }

    /**
     * Settings of a {@link RingbusServerExtension}: those of {@link RingbusServerTest}, plus direct
     * access to the broker's and the server's builders. Not thread-safe; {@link #build()} checks them.
     */
    public static final class Builder {
        private String token = "";
        private String user = "";
        private String password = "";
        private Scope clientScope = Scope.PUBLIC;
        private int maxPayload = ServerConfig.DEFAULT_MAX_PAYLOAD;
        private boolean perMethod;
        private boolean monitor;
        private UnaryOperator<BrokerBuilder> brokerConfig = UnaryOperator.identity();
        private UnaryOperator<ServerConfig.Builder> serverConfig = UnaryOperator.identity();

        private Builder() {
        }

        /** @param token a token clients must present, as {@link RingbusServerTest#token()} @return this */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /**
         * @param user     a user name clients must present
         * @param password its password
         * @return this
         */
        public Builder user(String user, String password) {
            this.user = Objects.requireNonNull(user, "user");
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** @param scope the scope network clients get, as {@link RingbusServerTest#clientScope()} @return this */
        public Builder clientScope(Scope scope) {
            this.clientScope = scope;
            return this;
        }

        /** @param bytes the largest payload the server accepts @return this */
        public Builder maxPayload(int bytes) {
            this.maxPayload = bytes;
            return this;
        }

        /** @return this, giving each test method a fresh server (and broker) of its own */
        public Builder perMethod() {
            this.perMethod = true;
            return this;
        }

        /** @return this, serving HTTP monitoring on a free loopback port */
        public Builder monitor() {
            this.monitor = true;
            return this;
        }

        /**
         * @param config changes to the broker's builder, applied after the extension's defaults
         *               (subjects PUBLIC, a 4096-slot ring)
         * @return this
         */
        public Builder broker(UnaryOperator<BrokerBuilder> config) {
            this.brokerConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * @param config changes to the server's builder, applied after the extension's settings;
         *               keep the port 0 so that parallel tests do not collide
         * @return this
         */
        public Builder server(UnaryOperator<ServerConfig.Builder> config) {
            this.serverConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * @return the extension
         * @throws IllegalArgumentException naming the setting when a user comes without a password
         *                                  (or the reverse), or the max payload is out of range
         */
        public RingbusServerExtension build() {
            return new RingbusServerExtension(new ServerSettings(token, user, password, clientScope, maxPayload,
                    perMethod, monitor, brokerConfig, serverConfig));
        }
    }
}
