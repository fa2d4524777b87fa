/**
 * ringbus-jcstress: jcstress tests of the memory-ordering and hand-off protocols of ringbus-core
 * and ringbus-server, and {@link io.ringbus.jcstress.JcstressGate}, which runs them and fails the
 * build on a forbidden outcome or an error.
 *
 * <p>The one deliberate exemption from "no module imports another module's {@code internal}
 * package": the tests live in {@code io.ringbus.core.internal} and
 * {@code io.ringbus.server.internal} so that they drive the real package-private classes
 * ({@code BufferedSubscriber}, {@code HandlerProbe}, {@code Outbound}, ...), not copies. This
 * module has no {@code module-info} and runs on the class path; nothing depends on it.
 */
package io.ringbus.jcstress;
