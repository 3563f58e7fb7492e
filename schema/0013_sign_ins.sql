-- FamilySync schema, migration 0013: signing in by a code the device shows (PROTOCOL §3.1), as the
-- web dashboard's browser does. A lookup from a code to a family, as recovery_codes is: found by
-- the code's hash, and distributed by it (deploy/citus.sql).
CREATE TABLE sign_ins (
    code_hash       bytea       PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    secret_hash     bytea       NOT NULL CHECK (octet_length(secret_hash) = 32),
    device_name     text        NOT NULL,
    platform        text        NOT NULL,
    time_zone       text        NOT NULL,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    -- Set together when a parent takes the code: its family, the pairing, the device's id to be.
    family_id       uuid,
    pairing_id      uuid,
    device_id       uuid,
    claimed_at      timestamptz,
    CHECK ((family_id IS NULL) = (pairing_id IS NULL) AND (pairing_id IS NULL) = (device_id IS NULL)),
    CHECK (claimed_at IS NULL OR pairing_id IS NOT NULL)
);
-- The hourly purge finds the expired ones.
CREATE INDEX sign_ins_expires_idx ON sign_ins (expires_at);
