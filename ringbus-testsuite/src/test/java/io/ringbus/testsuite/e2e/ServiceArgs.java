package io.ringbus.testsuite.e2e;

import java.util.HashMap;
import java.util.Map;

/** A service main's {@code --name value} arguments. */
final class ServiceArgs {
    private final Map<String, String> values = new HashMap<>();

    ServiceArgs(String[] args) {
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("arguments come in --name value pairs: " + String.join(" ", args));
        }
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name, got: " + args[i]);
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    String text(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing argument --" + name + " (given " + values.keySet() + ")");
        }
        return value;
    }

    int integer(String name) {
        return Integer.parseInt(text(name));
    }

    double decimal(String name) {
        return Double.parseDouble(text(name));
    }
}
