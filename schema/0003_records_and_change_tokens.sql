-- FamilySync schema, migration 0003: records, change sequences and tombstones (PROTOCOL §4, §5).
--
-- Every write transaction of a family takes the family's row lock to advance families.change_seq,
-- and stamps what it changed with the values it took. The lock is held to commit, so sequence
-- numbers become visible in the order they were taken: a reader that has seen N has seen every
-- change up to N. (A global SEQUENCE would not give this: nextval() is not transactional, and
-- transactions commit out of order.) One counter per family also serves as every zone's sequence.

ALTER TABLE families
    ADD COLUMN change_seq  bigint NOT NULL DEFAULT 0,
    -- Tokens older than this may have missed a purged tombstone: 410 CHANGE_TOKEN_EXPIRED.
    ADD COLUMN horizon_seq bigint NOT NULL DEFAULT 0;

ALTER TABLE zones
    -- A new incarnation when a deleted zone is made again, so that old tokens stop working.
    ADD COLUMN incarnation uuid        NOT NULL DEFAULT gen_random_uuid(),
    ADD COLUMN changed_seq bigint      NOT NULL DEFAULT 0,
    -- Set when the zone is deleted; the row stays as a tombstone for the database change feed.
    ADD COLUMN deleted_at  timestamptz;

CREATE INDEX zones_changed_idx ON zones (family_id, changed_seq);

CREATE TABLE records (
    family_id          uuid        NOT NULL,
    zone_name          text        NOT NULL,
    record_name        text        NOT NULL,
    record_type        text        NOT NULL,
    fields             jsonb       NOT NULL,
    change_tag         text        NOT NULL,
    deleted            boolean     NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL,
    created_by         uuid        NOT NULL,
    modified_at        timestamptz NOT NULL,
    modified_by        uuid        NOT NULL,
    modified_role      text        NOT NULL CHECK (modified_role IN ('parent', 'child', 'server')),
    client_modified_at timestamptz NOT NULL,
    seq                bigint      NOT NULL,
    CONSTRAINT records_pkey PRIMARY KEY (family_id, zone_name, record_name),
    CONSTRAINT records_zone_fkey FOREIGN KEY (family_id, zone_name) REFERENCES zones (family_id, zone_name) ON DELETE CASCADE
);

CREATE INDEX records_changes_idx  ON records (family_id, zone_name, seq);
CREATE INDEX records_logical_idx  ON records (family_id, zone_name, record_type, (fields -> 'logicalID'));
CREATE INDEX records_device_idx   ON records (family_id, zone_name, record_type, (fields -> 'deviceID'));
CREATE INDEX records_category_idx ON records (family_id, zone_name, record_type, (fields -> 'category'));
CREATE INDEX records_modified_idx ON records (family_id, zone_name, record_type, modified_at);
CREATE INDEX records_tombstone_idx ON records (family_id, modified_at) WHERE deleted;

-- Server-wide secrets (the change-token key). Like schema_migrations it describes the server, not
-- a family, and is the other exception to the family_id rule.
CREATE TABLE server_secrets (
    name       text        NOT NULL PRIMARY KEY,
    secret     bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
