-- ringbus-outbox schema version 3 (H2): an archive for relays that keep an audit trail (see the
-- PostgreSQL script).
CREATE TABLE ${schema}.${table}_archive (
    id          BIGINT PRIMARY KEY,
    subject     VARCHAR(1024) NOT NULL,
    msg_key     VARCHAR(512),
    payload     VARBINARY NOT NULL,
    headers     VARCHAR,
    attempts    INT NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    archived_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ${table}_archive_at ON ${schema}.${table}_archive (archived_at);
