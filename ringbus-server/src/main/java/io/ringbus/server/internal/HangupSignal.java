package io.ringbus.server.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/**
 * Runs an action on SIGHUP, as nats-server reloads on it, through {@code sun.misc.Signal}
 * (module {@code jdk.unsupported}), reached by reflection so that the build's
 * {@code -Werror} does not meet the proprietary-API warning. It replaces the JVM's own SIGHUP
 * handling (running the shutdown hooks). Where it is unavailable ({@code -Xrs}, a platform
 * without SIGHUP) nothing is installed and the reason is logged: file polling still reloads.
 */
public final class HangupSignal {
    private static final Logger LOG = LoggerFactory.getLogger(HangupSignal.class);

    private HangupSignal() {
    }

    /**
     * Installs {@code action} as the SIGHUP handler; it runs on the JVM's signal thread and must
     * not throw (what it throws is logged).
     *
     * @param action what to do on each SIGHUP
     * @return whether the handler was installed
     */
    public static boolean onHangup(Runnable action) {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object hup = signalType.getConstructor(String.class).newInstance("HUP");
            InvocationHandler calls = (proxy, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    try {
                        action.run();
                    } catch (RuntimeException e) {
                        LOG.warn("SIGHUP: reload failed", e);
                    }
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "SIGHUP handler";
            };
            Object handler = Proxy.newProxyInstance(HangupSignal.class.getClassLoader(), new Class<?>[] {handlerType},
                    calls);
            signalType.getMethod("handle", signalType, handlerType).invoke(null, hup, handler);
            return true;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.info("SIGHUP not available ({}): TLS files are reloaded when they change", e.toString());
            return false;
        }
    }
}
