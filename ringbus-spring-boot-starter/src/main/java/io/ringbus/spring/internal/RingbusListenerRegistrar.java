package io.ringbus.spring.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.Durations;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.spring.RingbusListener;
import io.ringbus.spring.RingbusListenerErrorHandler;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link RingbusListener} methods on every bean as it is initialized, and subscribes them
 * when the context starts ({@link #start()}, in its own lifecycle phase: before the embedded
 * server accepts clients). {@link #stop()} runs after the broker has drained and closed (a lower
 * phase stops later), so every message the broker accepted reached its listener first.
 *
 * <p>The broker, the error handler and the converter are looked up at start, not when this
 * post-processor is created, so none of them is created early.
 */
public final class RingbusListenerRegistrar implements BeanPostProcessor, SmartLifecycle, EmbeddedValueResolverAware,
        BeanFactoryAware {

    private static final Logger LOG = LoggerFactory.getLogger(RingbusListenerRegistrar.class);

    /** One annotated method of one bean. */
    private record Endpoint(Object bean, Method method, RingbusListener annotation) {
    }

    private final Supplier<Broker> broker;
    private final Supplier<RingbusListenerErrorHandler> errorHandler;
    private final Supplier<PayloadConverter> converter;
    private final int phase;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final List<Subscription> subscriptions = new ArrayList<>();
    private StringValueResolver resolver;
    private BeanFactory beanFactory;
    private volatile boolean running;

    /**
     * @param broker       the broker to subscribe to, looked up at start
     * @param errorHandler where listener failures go, looked up at start
     * @param converter    payload conversion, looked up at start
     * @param phase        the lifecycle phase
     */
    public RingbusListenerRegistrar(Supplier<Broker> broker, Supplier<RingbusListenerErrorHandler> errorHandler,
                                    Supplier<PayloadConverter> converter, int phase) {
        this.broker = broker;
        this.errorHandler = errorHandler;
        this.converter = converter;
        this.phase = phase;
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.resolver = resolver;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(type, RingbusListener.class)) {
            return bean;
        }
        Map<Method, RingbusListener> found = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<RingbusListener>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, RingbusListener.class));
        if (!found.isEmpty()) {
            lock.lock();
            try {
                for (Map.Entry<Method, RingbusListener> e : found.entrySet()) {
                    // call through the proxy (transactions, security) when the bean is one
                    Method callable = AopUtils.selectInvocableMethod(e.getKey(), bean.getClass());
                    endpoints.add(new Endpoint(bean, callable, e.getValue()));
                }
            } finally {
                lock.unlock();
            }
        }
        return bean;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (running) {
                return;
            }
            Broker target = broker.get();
            RingbusListenerErrorHandler errors = errorHandler.get();
            PayloadConverter payloads = converter.get();
            for (Endpoint endpoint : endpoints) {
                String pattern = resolve(endpoint.annotation().subject());
                MethodMessageHandler handler = new MethodMessageHandler(endpoint.bean(), endpoint.method(), pattern,
                        target, payloads, errors);
                MessageHandler subscribed = endpoint.annotation().inbox().isEmpty() ? handler
                        : inboxHandler(resolve(endpoint.annotation().inbox()), handler);
                subscriptions.add(target.subscribe(pattern, subscribed, options(endpoint.annotation())));
                LOG.debug("@RingbusListener {} subscribed to '{}'", endpoint.method(), pattern);
            }
            running = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void stop() {
        lock.lock();
        try {
            for (Subscription subscription : subscriptions) {
                try {
                    subscription.unsubscribe();
                } catch (RuntimeException e) {
                    LOG.debug("unsubscribing {} after the broker closed", subscription.pattern(), e);
                }
            }
            subscriptions.clear();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** @return the subscriptions made at start (empty before start and after stop) */
    public List<Subscription> subscriptions() {
        lock.lock();
        try {
            return List.copyOf(subscriptions);
        } finally {
            lock.unlock();
        }
    }

    private MessageHandler inboxHandler(String inbox, MethodMessageHandler handler) {
        ClassLoader loader = getClass().getClassLoader();
        if (!ClassUtils.isPresent("io.ringbus.outbox.Inbox", loader)
                || !ClassUtils.isPresent("org.springframework.jdbc.datasource.DataSourceUtils", loader)) {
            throw new IllegalStateException("@RingbusListener(inbox = \"" + inbox + "\") on " + handler.method()
                    + " needs ringbus-outbox and spring-jdbc on the classpath");
        }
        if (beanFactory == null) {
            throw new IllegalStateException("@RingbusListener(inbox = \"" + inbox + "\") on " + handler.method()
                    + " needs the application context's DataSource and PlatformTransactionManager beans");
        }
        return InboxMessageHandler.create(beanFactory, inbox, handler);
    }

    private String resolve(String subject) {
        return resolver == null ? subject : resolver.resolveStringValue(subject);
    }

    private SubscribeOptions options(RingbusListener a) {
        SubscribeOptions options = SubscribeOptions.defaults().mode(a.mode()).ordered(a.ordered())
                .overflow(a.overflow());
        if (!a.queueGroup().isEmpty()) {
            options = options.queueGroup(resolve(a.queueGroup()));
        }
        if (a.maxConcurrency() > 0) {
            options = options.maxConcurrency(a.maxConcurrency());
        }
        if (a.bufferSize() > 0) {
            options = options.bufferSize(a.bufferSize());
        }
        if (!a.maxExecuteTime().isEmpty()) {
            options = options.maxExecuteTime(Durations.parse(resolve(a.maxExecuteTime())));
        }
        return options;
    }
}
