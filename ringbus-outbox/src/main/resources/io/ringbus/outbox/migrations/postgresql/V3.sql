-- ringbus-outbox schema version 3 (PostgreSQL): an archive for relays that keep an audit trail.
--
-- A relay with archiveDelivered(true) (--archive) deletes each delivered row from the events table
-- and inserts it here in the same statement: the hot table stays delete-only (no update per row,
-- no index of delivered rows to keep), and the archive is only ever appended to, then swept by
-- the relay's retention in archived_at order.
CREATE TABLE ${schema}.${table}_archive (
    id          BIGINT PRIMARY KEY,
    subject     VARCHAR(1024) NOT NULL,
    msg_key     VARCHAR(512),
    payload     BYTEA NOT NULL,
    headers     TEXT,
    attempts    INT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    archived_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX ${table}_archive_at ON ${schema}.${table}_archive (archived_at);
