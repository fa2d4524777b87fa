/**
 * ringbus-core: the in-process event broker.
 *
 * <p>Only {@code io.ringbus.core} is exported; everything under {@code io.ringbus.core.internal}
 * is implementation and may change without notice.
 */
module io.ringbus.core {
    requires com.lmax.disruptor;
    requires org.jctools.core;
    requires org.slf4j;

    exports io.ringbus.core;
}
