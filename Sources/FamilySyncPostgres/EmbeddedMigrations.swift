// Written by scripts/embed-migrations from schema/*.sql. Do not edit: change schema/ and run the script.
extension Migration {
    static let embedded: [Migration] = [
        Migration(
            version: 1,
            name: "families",
            sql: ####"""
-- FamilySync schema, migration 0001: families.
--
-- Rules for every migration in this folder (they keep the data distributable by family, as
-- Citus distributes a table by one column):
--   * every table carries family_id uuid NOT NULL;
--   * every primary key, unique constraint and index begins with family_id;
--   * foreign keys between family tables include family_id.
-- The only exception is schema_migrations, which the migrator owns and which describes the
-- database itself, not a family.
--
-- Migrations are applied in order of their number, each in its own transaction, and recorded
-- in schema_migrations. Never edit a migration that has been released: add a new one. The
-- binary carries these files (Sources/FamilySyncPostgres/EmbeddedMigrations.swift, written by
-- scripts/embed-migrations), and a test proves the two are the same.

CREATE TABLE families (
    family_id  uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT families_pkey PRIMARY KEY (family_id)
);

"""####
        ),
        Migration(
            version: 2,
            name: "devices_pairings_zones",
            sql: ####"""
-- FamilySync schema, migration 0002: devices, pairings and zones (PROTOCOL §2–§4).
-- Every table carries family_id and every key and index begins with it (see 0001). Credentials and
-- pairing tokens carry their family id, so that a request finds its row by primary key.

CREATE TABLE devices (
    family_id       uuid        NOT NULL,
    device_id       uuid        NOT NULL,
    role            text        NOT NULL CHECK (role IN ('parent', 'child')),
    name            text        NOT NULL,
    child_name      text,
    platform        text        NOT NULL,
    time_zone       text        NOT NULL,
    status          text        NOT NULL CHECK (status IN ('awaiting_confirmation', 'active', 'revoked')),
    -- SHA-256 of the credential; NULL once the device is revoked.
    credential_hash bytea       CHECK (octet_length(credential_hash) = 32),
    registered_at   timestamptz NOT NULL,
    last_seen_at    timestamptz,
    last_sync_at    timestamptz,
    CONSTRAINT devices_pkey PRIMARY KEY (family_id, device_id),
    CONSTRAINT devices_family_fkey FOREIGN KEY (family_id) REFERENCES families (family_id) ON DELETE CASCADE
);

CREATE TABLE pairings (
    family_id          uuid        NOT NULL,
    pairing_id         uuid        NOT NULL,
    role               text        NOT NULL CHECK (role IN ('parent', 'child')),
    child_name         text,
    status             text        NOT NULL CHECK (status IN ('pending', 'accepted', 'confirmed', 'rejected', 'revoked', 'burned')),
    created_by         uuid        NOT NULL,
    -- The device that accepted it.
    device_id          uuid,
    token_hash         bytea       NOT NULL CHECK (octet_length(token_hash) = 32),
    failed_attempts    integer     NOT NULL DEFAULT 0,
    verification_emoji text[],
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    decided_at         timestamptz,
    CONSTRAINT pairings_pkey PRIMARY KEY (family_id, pairing_id),
    CONSTRAINT pairings_creator_fkey FOREIGN KEY (family_id, created_by) REFERENCES devices (family_id, device_id) ON DELETE CASCADE,
    CONSTRAINT pairings_device_fkey FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);

CREATE INDEX pairings_status_idx ON pairings (family_id, status, created_at);

CREATE TABLE zones (
    family_id       uuid        NOT NULL,
    zone_name       text        NOT NULL,
    -- The child a child zone belongs to and is shared with; NULL for the family's own zones.
    child_device_id uuid,
    created_at      timestamptz NOT NULL,
    CONSTRAINT zones_pkey PRIMARY KEY (family_id, zone_name),
    CONSTRAINT zones_family_fkey FOREIGN KEY (family_id) REFERENCES families (family_id) ON DELETE CASCADE,
    CONSTRAINT zones_child_fkey FOREIGN KEY (family_id, child_device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);

CREATE INDEX zones_child_idx ON zones (family_id, child_device_id);

"""####
        ),
    ]
}
