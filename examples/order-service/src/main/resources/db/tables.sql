-- The order service's tables, created when missing (spring.sql.init.mode=always), in the schema
-- the connection's currentSchema names (db/schema.sql creates it). The outbox's tables are created
-- by ringbus-outbox itself (ringbus.outbox.migrate, on by default).
CREATE TABLE IF NOT EXISTS orders (
    id         VARCHAR(36) PRIMARY KEY,
    sku        VARCHAR(64) NOT NULL,
    quantity   INT NOT NULL CHECK (quantity > 0),
    status     VARCHAR(16) NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS stock (
    sku       VARCHAR(64) PRIMARY KEY,
    available INT NOT NULL CHECK (available >= 0)
);
INSERT INTO stock (sku, available) VALUES ('apple', 1000), ('pear', 10) ON CONFLICT (sku) DO NOTHING;
