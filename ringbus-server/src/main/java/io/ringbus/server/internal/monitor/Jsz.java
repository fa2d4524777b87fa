package io.ringbus.server.internal.monitor;

import io.ringbus.server.spi.MonitorQuery;

/**
 * {@code /jsz} while no extension serves it: what nats-server 2.9.10 answers without JetStream
 * ({@code "disabled": true}, zero figures), after reading the parameters as it does
 * ({@code accounts}, {@code streams}, {@code consumers}, {@code config}, {@code leader-only},
 * {@code offset}, {@code limit}, {@code acc}); {@code leader-only} is a {@code 400}, as there.
 */
final class Jsz {
    private Jsz() {
    }

    /** @throws IllegalArgumentException naming a bad parameter, or for {@code leader-only} */
    static String disabled(MonitorView view, MonitorQuery query) {
        for (String flag : new String[] {"accounts", "streams", "consumers", "config"}) {
            query.flag(flag);
        }
        query.integer("offset", 0);
        query.integer("limit", 0);
        if (query.flag("leader-only")) {
            throw new IllegalArgumentException("filtered response: not leader");
        }
        JsonResponse json = new JsonResponse().beginObject()
                .field("server_id", view.server.serverId())
                .field("now", NatsTime.instant(System.currentTimeMillis()))
                .field("disabled", true);
        json.name("config").beginObject().field("max_memory", 0).field("max_storage", 0).endObject();
        json.field("memory", 0).field("storage", 0).field("reserved_memory", 0).field("reserved_storage", 0)
                .field("accounts", 0).field("ha_assets", 0);
        json.name("api").beginObject().field("total", 0).field("errors", 0).endObject();
        return json.field("streams", 0).field("consumers", 0).field("messages", 0).field("bytes", 0)
                .endObject().toJson();
    }
}
