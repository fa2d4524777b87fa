package io.ringbus.server.spi;

import io.ringbus.core.Scope;

/**
 * One monitoring request to a path an extension serves ({@link ExtensionContext#monitor}): who asks
 * and the query parameters. The parameter readers check their value and throw
 * {@link IllegalArgumentException} naming the parameter and the value, which the monitor answers
 * {@code 400 {"error": "..."}}, as it answers a bad parameter of its own paths.
 */
public interface MonitorQuery {
    /** @return the path asked for, such as {@code /jsz} */
    String path();

    /**
     * @return the scope of the credential that asks: {@link Scope#ROOT} when the monitor needs no
     *         credential; the answer shows only what this scope may see (names, subjects,
     *         configurations), as {@code /connz} shows only the clients of its scope and below
     */
    Scope viewer();

    /**
     * @param name a parameter's name
     * @return its first value, or {@code null} when absent
     */
    String string(String name);

    /**
     * Reads a boolean as nats-server's monitor does (Go's {@code strconv.ParseBool}).
     *
     * @param name a parameter's name
     * @return {@code false} when absent or empty; {@code true} for {@code 1 t T TRUE true True};
     *         {@code false} for {@code 0 f F FALSE false False}
     * @throws IllegalArgumentException naming the parameter and its value otherwise
     */
    boolean flag(String name);

    /**
     * @param name   a parameter's name
     * @param absent the value when it is absent or empty
     * @return its value, an integer in 0..1,000,000 (the bound of the monitor's own {@code offset}
     *         and {@code limit})
     * @throws IllegalArgumentException naming the parameter and its value otherwise
     */
    int integer(String name, int absent);
}
