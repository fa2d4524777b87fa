-- ringbus-outbox schema version 2 (PostgreSQL): nothing in the producer's commit but its INSERT,
-- and relays that own their rows instead of competing for them.
--
-- No NOTIFY per commit: a transaction that queued one takes a cluster-wide lock at commit, which
-- serialises every producer. Relays poll adaptively and are woken in-process by appends.
DROP TRIGGER ${table}_notify ON ${schema}.${table};
DROP FUNCTION ${schema}.${table}_notify();
-- Each row belongs to one of 64 buckets: a keyed row to hashtextextended(msg_key, 0) & 63 (so a
-- key's rows share a bucket), an unkeyed one to any. Each bucket is leased to one relay loop at a
-- time, which claims its rows in id order with a plan that needs no statistics: one index range
-- per bucket, no per-key count, no contention with other relays.
ALTER TABLE ${schema}.${table} ADD COLUMN bucket SMALLINT NOT NULL DEFAULT 0;
UPDATE ${schema}.${table} SET bucket = (hashtextextended(msg_key, 0) & 63)::smallint WHERE msg_key IS NOT NULL;
CREATE INDEX ${table}_pending_bucket ON ${schema}.${table} (bucket, id) WHERE status = 0;
DROP INDEX ${schema}.${table}_pending_key;
-- Appends of one key take a transaction-scoped advisory lock on the key's hash instead of
-- upserting a key row: the same commit order, without a write.
DROP TABLE ${schema}.${table}_key;
CREATE TABLE ${schema}.${table}_bucket (
    bucket     SMALLINT PRIMARY KEY,
    owner      VARCHAR(256),
    expires_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
);
INSERT INTO ${schema}.${table}_bucket (bucket) SELECT b FROM generate_series(0, 63) AS b;
-- Relay loops alive: each heartbeats here; the fair share of buckets is 64 / live loops.
CREATE TABLE ${schema}.${table}_member (
    member  VARCHAR(256) PRIMARY KEY,
    seen_at TIMESTAMPTZ NOT NULL
);
