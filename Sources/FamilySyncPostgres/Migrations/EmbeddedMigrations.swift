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
-- The exceptions are schema_migrations (owned by the migrator) and server_secrets (0003), which describe the
-- server itself, not a family.
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
        Migration(
            version: 3,
            name: "records_and_change_tokens",
            sql: ####"""
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

"""####
        ),
        Migration(
            version: 4,
            name: "change_notices",
            sql: ####"""
-- FamilySync schema, migration 0004: what long polls watch (PROTOCOL §6).
--
-- A poll answers when something the caller can see changed after its token's sequence: a zone
-- (zones.changed_seq) or a device's status, role or name (devices.changed_seq, new here). Device
-- changes take a number of the family's change sequence like every other write, under the same
-- family row lock. Writers also send pg_notify('familysync_changes', '<family>|zone|<name>' …)
-- in their transaction; PostgreSQL delivers it on commit, to every server instance.

ALTER TABLE devices ADD COLUMN changed_seq bigint NOT NULL DEFAULT 0;

CREATE INDEX devices_changed_idx ON devices (family_id, changed_seq);

-- Sequence 0 means "before anything": a device awaiting confirmation holds a token at 0, and must
-- see every zone once confirmed. So a family's creation is change 1, and nothing stays at 0.
UPDATE families SET change_seq = 1 WHERE change_seq = 0;
UPDATE zones SET changed_seq = 1 WHERE changed_seq = 0;
UPDATE devices SET changed_seq = 1 WHERE changed_seq = 0;

"""####
        ),
        Migration(
            version: 5,
            name: "commands_and_usage",
            sql: ####"""
-- FamilySync schema, migration 0005: configuration commands and usage (PROTOCOL §7).
--
-- A command is a ConfigurationCommand record `command-<commandId>` in its child's zone;
-- `POST /v1/commands/{id}/…` names only the command, so it is found by record name within the
-- caller's family.
CREATE INDEX records_name_idx ON records (family_id, record_name);

-- Usage records keep their instants as fixed-width UTC text (`2026-11-21T08:15:00.000Z`), so text
-- order is time order: summaries find the sessions overlapping a day, and parents read usage by
-- instant range, through this index.
CREATE INDEX records_usage_end_idx ON records (family_id, zone_name, (fields ->> 'sessionEnd')) WHERE record_type = 'UsageRecord';

"""####
        ),
        Migration(
            version: 6,
            name: "members_and_recovery",
            sql: ####"""
-- FamilySync schema, migration 0006: members, tracked devices and family recovery (PROTOCOL §8, §13).
--
-- A member is a person of the family; a device belongs to one from its confirmation on (one
-- awaiting confirmation, or rejected before it, has none). Each member has a zone
-- `member-<memberId>`, shared read-only with its own devices.
--
-- Existing data: every confirmed device (active or revoked) gets a member of its own, whose id is
-- the device's id (unique in the family already), named after the child name or the device, and
-- its member zone. A revoked device keeps one so that its history reads through the member view.
-- A device awaiting confirmation gets its member when a parent confirms it, as a new one would. The family's
-- change sequence advances once, so that devices holding a database token see the new zones.

CREATE TABLE members (
    family_id   uuid        NOT NULL,
    member_id   uuid        NOT NULL,
    name        text        NOT NULL,
    role        text        NOT NULL CHECK (role IN ('parent', 'child')),
    created_at  timestamptz NOT NULL,
    -- A deleted member stays, so that its revoked devices still name it; it is listed no more.
    deleted_at  timestamptz,
    CONSTRAINT members_pkey PRIMARY KEY (family_id, member_id),
    CONSTRAINT members_family_fkey FOREIGN KEY (family_id) REFERENCES families (family_id) ON DELETE CASCADE
);

ALTER TABLE devices
    ADD COLUMN member_id uuid,
    -- Children's devices are always tracked; a parent's when it asks (§8).
    ADD COLUMN tracked   boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT devices_member_fkey FOREIGN KEY (family_id, member_id) REFERENCES members (family_id, member_id);

CREATE INDEX devices_member_idx ON devices (family_id, member_id);

-- A pairing into an existing member (a second device of a person); NULL: a new member at confirmation.
ALTER TABLE pairings
    ADD COLUMN member_id uuid,
    ADD CONSTRAINT pairings_member_fkey FOREIGN KEY (family_id, member_id) REFERENCES members (family_id, member_id);

-- A member's zone names its member; a device's zone (`child-…`, `device-…`) its device.
ALTER TABLE zones
    ADD COLUMN member_id uuid,
    ADD CONSTRAINT zones_member_fkey FOREIGN KEY (family_id, member_id) REFERENCES members (family_id, member_id);

CREATE INDEX zones_member_idx ON zones (family_id, member_id);

INSERT INTO members (family_id, member_id, name, role, created_at)
SELECT family_id, device_id, COALESCE(child_name, name), role, registered_at FROM devices WHERE status <> 'awaiting_confirmation';

UPDATE devices SET member_id = CASE WHEN status <> 'awaiting_confirmation' THEN device_id END, tracked = (role = 'child');

UPDATE families SET change_seq = change_seq + 1 WHERE EXISTS (SELECT 1 FROM devices d WHERE d.family_id = families.family_id);

INSERT INTO zones (family_id, zone_name, child_device_id, member_id, created_at, changed_seq)
SELECT m.family_id, 'member-' || m.member_id::text, NULL, m.member_id, m.created_at, f.change_seq
FROM members m JOIN families f ON f.family_id = m.family_id;

-- §13: the family's recovery code, as SHA-256 (found by it: the code is 160 random bits).
-- This index and apple_accounts_sub_idx are the two that do not begin with family_id: recovery
-- starts from nothing but the code or the Apple account, and must find the family from it. In a
-- distributed layout they would be a small lookup table beside the family tables.
ALTER TABLE families ADD COLUMN recovery_code_hash bytea CHECK (octet_length(recovery_code_hash) = 32);
CREATE UNIQUE INDEX families_recovery_idx ON families (recovery_code_hash);

-- §13: Apple accounts linked to parent members, by the token's `sub`.
CREATE TABLE apple_accounts (
    family_id    uuid        NOT NULL,
    apple_sub    text        NOT NULL,
    member_id    uuid        NOT NULL,
    linked_at    timestamptz NOT NULL,
    CONSTRAINT apple_accounts_pkey PRIMARY KEY (family_id, apple_sub),
    CONSTRAINT apple_accounts_member_fkey FOREIGN KEY (family_id, member_id) REFERENCES members (family_id, member_id) ON DELETE CASCADE
);
-- An Apple account belongs to one family: recovery finds the family by it.
CREATE UNIQUE INDEX apple_accounts_sub_idx ON apple_accounts (apple_sub);

"""####
        ),
        Migration(
            version: 7,
            name: "daily_totals",
            sql: ####"""
-- FamilySync schema, migration 0007: daily totals (PROTOCOL §9.2).
--
-- A device's running totals for a day are one `DailyTotals` record a day in its zone. The
-- retention job finds those of days past retention by their date.
CREATE INDEX records_totals_date_idx ON records ((fields ->> 'date')) WHERE record_type = 'DailyTotals' AND NOT deleted;

"""####
        ),
        Migration(
            version: 8,
            name: "device_health",
            sql: ####"""
-- FamilySync schema, migration 0008: device health (PROTOCOL §10).
--
-- A heartbeat is an update of one row (`device_health`), not a record write: a device every
-- 30 seconds costs one short statement. The `health` record in the device's zone is written only
-- when something a parent sees changes, or at most every 5 minutes (`record_written_at`).
CREATE TABLE device_health (
    family_id uuid NOT NULL,
    device_id uuid NOT NULL,
    monitoring_active boolean NOT NULL,
    -- The server's receipt time of the last heartbeat (a device's clock may jump).
    last_heartbeat_at timestamptz NOT NULL,
    memory_usage_mb integer,
    last_sequence bigint,
    -- As last judged and written to the record: healthy, stale or inactive.
    status text NOT NULL CHECK (status IN ('healthy', 'stale', 'inactive')),
    record_written_at timestamptz NOT NULL,
    -- The end of the local day the record describes (instants, not dates: no time zone
    -- arithmetic in SQL, whose zone names may differ from Foundation's).
    record_day_end timestamptz NOT NULL,
    -- The end of the last local day a tracking alert was made for.
    tracking_alerted_until timestamptz,
    PRIMARY KEY (family_id, device_id),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);
-- The stale detector's scan: healthy devices by their last heartbeat.
CREATE INDEX device_health_healthy_idx ON device_health (last_heartbeat_at) WHERE status = 'healthy';
CREATE INDEX device_health_stale_idx ON device_health (last_heartbeat_at) WHERE status = 'stale';

-- Per local day: notifications missed and sequence restarts.
CREATE TABLE device_health_days (
    family_id uuid NOT NULL,
    device_id uuid NOT NULL,
    date text NOT NULL,
    missed_notifications integer NOT NULL DEFAULT 0,
    sequence_resets integer NOT NULL DEFAULT 0,
    PRIMARY KEY (family_id, device_id, date),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);

-- Closed heartbeat gaps (monitoring on, heartbeats more than 300 s apart).
CREATE TABLE device_heartbeat_gaps (
    family_id uuid NOT NULL,
    device_id uuid NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at timestamptz NOT NULL,
    PRIMARY KEY (family_id, device_id, started_at),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);

-- The extension's error log: the newest 100 a device, once per id.
CREATE TABLE device_errors (
    family_id uuid NOT NULL,
    device_id uuid NOT NULL,
    error_id uuid NOT NULL,
    occurred_at timestamptz NOT NULL,
    event_name text NOT NULL,
    action text NOT NULL,
    success boolean NOT NULL,
    description text,
    memory_usage_mb integer,
    PRIMARY KEY (family_id, device_id, error_id),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);
CREATE INDEX device_errors_time_idx ON device_errors (family_id, device_id, occurred_at DESC);

"""####
        ),
        Migration(
            version: 9,
            name: "parent_pin_attempts",
            sql: ####"""
-- Online checks of a member's parent PIN (PROTOCOL §11): the wrong ones of the last 15 minutes,
-- the ones under way (admitted, their PBKDF2 running), and until when checks are refused after
-- the fifth wrong one. The PIN's hash lives in the member's
-- `parent-pin` record; nothing here can give the PIN back.
CREATE TABLE parent_pin_attempts (
    family_id uuid NOT NULL,
    member_id uuid NOT NULL,
    failures timestamptz[] NOT NULL DEFAULT '{}',
    pending timestamptz[] NOT NULL DEFAULT '{}',
    locked_until timestamptz,
    PRIMARY KEY (family_id, member_id),
    FOREIGN KEY (family_id, member_id) REFERENCES members (family_id, member_id) ON DELETE CASCADE
);

"""####
        ),
        Migration(
            version: 10,
            name: "push_tokens",
            sql: ####"""
-- Push registrations (PROTOCOL §12): a device's APNs token. A token belongs to one device at a
-- time, whichever family it is in: registering it again elsewhere moves it (an app reinstalled
-- and paired anew keeps its token). A revoked device's registration goes with its credential.
CREATE TABLE device_push_tokens (
    family_id uuid NOT NULL,
    device_id uuid NOT NULL,
    provider text NOT NULL CHECK (provider IN ('apns')),
    token text NOT NULL,
    topic text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
    registered_at timestamptz NOT NULL,
    PRIMARY KEY (family_id, device_id),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX device_push_tokens_token_idx ON device_push_tokens (provider, token);

"""####
        ),
        Migration(
            version: 11,
            name: "push_outbox",
            sql: ####"""
-- The push outbox (PROTOCOL §12): a push is a row written in the transaction of the change that
-- causes it, so it is sent if and only if the change committed; any instance's sender claims due
-- rows with FOR UPDATE SKIP LOCKED and a claim that expires, so an instance that dies with rows
-- claimed loses none, and two instances never hold the same row.
CREATE TABLE push_outbox (
    push_id bigserial PRIMARY KEY,
    -- APNs's apns-id: the same on every try of the push.
    apns_id uuid NOT NULL DEFAULT gen_random_uuid(),
    family_id uuid NOT NULL,
    device_id uuid NOT NULL,
    -- background: content-available, coalesced (one row a device); alert: a visible notification
    -- of a new Alert to a parent device.
    kind text NOT NULL CHECK (kind IN ('background', 'alert')),
    -- background: {"zones": [...]}; alert: {"title", "body", "alertID", "memberID", "kind"}.
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    -- Not sent before (a retry's backoff).
    not_before timestamptz NOT NULL,
    -- Not sent after, and APNs's apns-expiration.
    expires_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    -- Held by a sender until then; a claim past it is free again (its instance died).
    claimed_until timestamptz,
    -- Bumped by every change merged into a background row: a sender deletes the row it sent only
    -- if nothing was merged into it meanwhile.
    version integer NOT NULL DEFAULT 0,
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);
-- At most one background push waiting per device: later changes merge their zones into it.
CREATE UNIQUE INDEX push_outbox_background_idx ON push_outbox (family_id, device_id) WHERE kind = 'background';
CREATE INDEX push_outbox_due_idx ON push_outbox (not_before);

-- When the device's last background push went (the coalescing interval counts from it), and until
-- when it holds a long poll (nothing is pushed to a device that a poll will tell).
ALTER TABLE device_push_tokens ADD COLUMN last_background_at timestamptz;
ALTER TABLE device_push_tokens ADD COLUMN poll_held_until timestamptz;

"""####
        ),
        Migration(
            version: 12,
            name: "distribution_ready",
            sql: ####"""
-- Ready for a PostgreSQL distributed by family (Citus, deploy/citus.sql; docs/operations.md,
-- "Outgrowing one PostgreSQL"): every table of a family's data carries family_id in its primary
-- key, its unique constraints and its foreign keys, so that each family's rows live together.
-- Three lookups that go from something else to a family cannot: a recovery code, an Apple
-- account and a push token are unique across families. The first two move to lookup tables
-- keyed by what is looked up (distributed by that key); the third keeps its index, no longer
-- unique, since registering a token already removes it from every other device first.
-- SchemaDistributionTests reads the catalog and fails on a table that breaks this.

-- A family's recovery code (§13), found by its hash. One code a family: a new one replaces it.
CREATE TABLE recovery_codes (
    code_hash bytea NOT NULL PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    family_id uuid  NOT NULL
);
INSERT INTO recovery_codes (code_hash, family_id)
SELECT recovery_code_hash, family_id FROM families WHERE recovery_code_hash IS NOT NULL;
CREATE INDEX recovery_codes_family_idx ON recovery_codes (family_id);
ALTER TABLE families DROP COLUMN recovery_code_hash;

-- The family an Apple account is linked to (its member is in apple_accounts, by family).
CREATE TABLE apple_subjects (
    apple_sub text NOT NULL PRIMARY KEY,
    family_id uuid NOT NULL
);
INSERT INTO apple_subjects (apple_sub, family_id) SELECT apple_sub, family_id FROM apple_accounts;
CREATE INDEX apple_subjects_family_idx ON apple_subjects (family_id);
DROP INDEX apple_accounts_sub_idx;

DROP INDEX device_push_tokens_token_idx;
CREATE INDEX device_push_tokens_token_idx ON device_push_tokens (provider, token);

ALTER TABLE push_outbox DROP CONSTRAINT push_outbox_pkey;
ALTER TABLE push_outbox ADD PRIMARY KEY (family_id, push_id);

"""####
        ),
        Migration(
            version: 13,
            name: "sign_ins",
            sql: ####"""
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

"""####
        ),
        Migration(
            version: 14,
            name: "memory_in_fractions",
            sql: ####"""
-- FamilySync schema, migration 0014: memory use in fractions of a megabyte (PROTOCOL §10).
--
-- Monitoring extensions measure their memory as a floating-point number of megabytes (4.1), and
-- the heartbeat now takes it as such; an integer column would refuse or round what was measured.
-- double precision, not numeric: the value is a binary floating-point number from the device to
-- the answer (Swift's Double, JSON's number), and float8 holds every such value exactly, so what is
-- sent is what is read back; numeric would store a decimal rendering of it for no gain. Stored
-- integers convert exactly.
ALTER TABLE device_health ALTER COLUMN memory_usage_mb TYPE double precision;
ALTER TABLE device_errors ALTER COLUMN memory_usage_mb TYPE double precision;

"""####
        ),
        Migration(
            version: 15,
            name: "family_data_rights",
            sql: ####"""
-- FamilySync schema, migration 0015: a family's data under its own control (PROTOCOL §15).
--
-- How long the family keeps each kind of data, in days; a kind left NULL is kept the operator's
-- maximum (--usage-retention-days). Only families that chose something have a row.
CREATE TABLE family_retention (
    family_id       uuid        PRIMARY KEY REFERENCES families ON DELETE CASCADE,
    usage_sessions  integer     CHECK (usage_sessions > 0),
    daily_totals    integer     CHECK (daily_totals > 0),
    summaries       integer     CHECK (summaries > 0),
    alerts          integer     CHECK (alerts > 0),
    health          integer     CHECK (health > 0),
    commands        integer     CHECK (commands > 0),
    audit           integer     CHECK (audit > 0),
    updated_at      timestamptz NOT NULL
);

-- Every change a parent or the server made to a child's rules, and to the family's data: who
-- (device, member, role, address), what, when. No field of a record is kept, only its type and
-- name. Numbered per family (families.audit_seq), so that an id says nothing of other families.
ALTER TABLE families ADD COLUMN audit_seq bigint NOT NULL DEFAULT 0;
CREATE TABLE audit_events (
    family_id       uuid        NOT NULL REFERENCES families ON DELETE CASCADE,
    event_id        bigint      NOT NULL,
    at              timestamptz NOT NULL,
    actor_role      text        NOT NULL CHECK (actor_role IN ('parent', 'child', 'server')),
    actor_device_id uuid,
    actor_member_id uuid,
    address         text,
    action          text        NOT NULL,
    member_id       uuid,
    subject_type    text        NOT NULL,
    subject         text,
    PRIMARY KEY (family_id, event_id)
);
CREATE INDEX audit_events_member_idx ON audit_events (family_id, member_id, event_id);
-- The retention job's scan, across families, for the operator's maximum.
CREATE INDEX audit_events_at_idx ON audit_events (at);

-- A parent's reads of the family's data, counted per day and member (never one row a read).
CREATE TABLE audit_reads (
    family_id       uuid        NOT NULL REFERENCES families ON DELETE CASCADE,
    day             date        NOT NULL,
    reader_member_id uuid       NOT NULL,
    route           text        NOT NULL,
    reads           bigint      NOT NULL,
    PRIMARY KEY (family_id, day, reader_member_id, route)
);
CREATE INDEX audit_reads_day_idx ON audit_reads (day);

-- The retention job's scans, across families, for the operator's maximum: the records kept from
-- their creation, and the health tables by their day.
CREATE INDEX records_kept_idx ON records (record_type, created_at)
    WHERE NOT deleted AND record_type IN ('DailySummary', 'WeeklySummary', 'Alert', 'ConfigurationCommand');
CREATE INDEX device_health_days_date_idx ON device_health_days (date);
CREATE INDEX device_heartbeat_gaps_ended_idx ON device_heartbeat_gaps (ended_at);
CREATE INDEX device_errors_occurred_idx ON device_errors (occurred_at);

"""####
        ),
        Migration(
            version: 16,
            name: "tracking_report",
            sql: ####"""
-- FamilySync schema, migration 0016: the weekly tracking report's figures (PROTOCOL §10.1).
--
-- Per device and local day: heartbeats, the time between them while monitoring, the part of that
-- time past the stale mark (120 s), those intervals by length, the extension's events, and the
-- app's and system's versions the device last named that day.
ALTER TABLE device_health_days
    ADD COLUMN heartbeats integer NOT NULL DEFAULT 0,
    ADD COLUMN monitored_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN stale_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN gaps_60 integer NOT NULL DEFAULT 0,
    ADD COLUMN gaps_120 integer NOT NULL DEFAULT 0,
    ADD COLUMN gaps_300 integer NOT NULL DEFAULT 0,
    ADD COLUMN gaps_900 integer NOT NULL DEFAULT 0,
    ADD COLUMN gaps_3600 integer NOT NULL DEFAULT 0,
    ADD COLUMN gaps_longer integer NOT NULL DEFAULT 0,
    ADD COLUMN events integer NOT NULL DEFAULT 0,
    ADD COLUMN failures integer NOT NULL DEFAULT 0,
    ADD COLUMN app_version text,
    ADD COLUMN os_version text;

-- The device's versions now, and what its quiet heartbeats (the one-statement path, which writes
-- only this row) added since the last report taken the full way, which folds them into
-- device_health_days at most 5 minutes later. A quiet heartbeat comes at most 300 s after the one
-- before, so three buckets hold its interval.
ALTER TABLE device_health
    ADD COLUMN app_version text,
    ADD COLUMN os_version text,
    ADD COLUMN pending_heartbeats integer NOT NULL DEFAULT 0,
    ADD COLUMN pending_monitored_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN pending_stale_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN pending_gaps_60 integer NOT NULL DEFAULT 0,
    ADD COLUMN pending_gaps_120 integer NOT NULL DEFAULT 0,
    ADD COLUMN pending_gaps_300 integer NOT NULL DEFAULT 0;

"""####
        ),
        Migration(
            version: 17,
            name: "idempotency_keys",
            sql: ####"""
-- Idempotency keys (PROTOCOL §1.2.1): a device's write sent again with the same
-- `Idempotency-Key` gets the answer the first one got, without a second effect. The row is
-- written in the transaction of the write it keys (so it exists if and only if the write
-- committed), and the answer is kept in it right after. Per device, for 24 hours; a family's
-- rows live with the family (distributed by family_id on Citus) and leave with the device.
CREATE TABLE idempotency_keys (
    family_id       uuid        NOT NULL,
    device_id       uuid        NOT NULL,
    idempotency_key text        NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
    -- HMAC-SHA-256 of the method, path and body under a key derived from the server's secret:
    -- a request body (a PIN) cannot be guessed back from it.
    request_hash    bytea       NOT NULL CHECK (octet_length(request_hash) = 32),
    -- The request's path (no query, no body): an erasure (§15.3) removes the keys of requests on
    -- what it erases, whose answers may hold its data.
    request_path    text        NOT NULL,
    created_at      timestamptz NOT NULL,
    -- The answer, once kept: NULL while the write is in progress, or if its instance stopped
    -- between the commit and keeping the answer.
    status          integer,
    content_type    text,
    body            bytea,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (family_id, device_id, idempotency_key),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);
-- The hourly purge of keys past their 24 hours.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

"""####
        ),
        Migration(
            version: 18,
            name: "parent_pin_verifier_on_server",
            sql: ####"""
-- The parent PIN's verifier (PROTOCOL §11) is the server's alone. It was in the member zone's
-- `parent-pin` record, which the member's devices sync, so that a device could check a PIN
-- offline; but a child holding its own device's credential could read it and try all 10,000
-- four-digit PINs offline in about half an hour, and the online limit (5 wrong in 15 minutes)
-- meant nothing. The salt, the iterations and the hash now sit beside the member's wrong tries,
-- where no device reads them; the record only says that a PIN is set.
ALTER TABLE parent_pin_attempts
    ADD COLUMN salt bytea CHECK (octet_length(salt) = 16),
    ADD COLUMN iterations integer CHECK (iterations >= 210000),
    ADD COLUMN hash bytea CHECK (octet_length(hash) = 32),
    -- The record still carries the verifier: the server rewrites it through its change log when
    -- it starts (PostgresParentPINStore.rewriteRecordsStillCarryingVerifiers), so that devices
    -- sync the change and drop their copy.
    ADD COLUMN record_rewrite_pending boolean NOT NULL DEFAULT false;

-- A member's row may be there already (it tried a PIN): it takes the verifier; the others are new.
UPDATE parent_pin_attempts a
SET salt = decode(r.fields ->> 'salt', 'base64'), iterations = (r.fields ->> 'iterations')::integer,
    hash = decode(r.fields ->> 'hash', 'base64'), record_rewrite_pending = true
FROM records r
WHERE r.family_id = a.family_id AND r.zone_name = 'member-' || a.member_id::text
  AND r.record_name = 'parent-pin' AND r.record_type = 'DeviceSettings' AND NOT r.deleted AND r.fields ? 'hash';

INSERT INTO parent_pin_attempts (family_id, member_id, salt, iterations, hash, record_rewrite_pending)
SELECT m.family_id, m.member_id, decode(r.fields ->> 'salt', 'base64'), (r.fields ->> 'iterations')::integer, decode(r.fields ->> 'hash', 'base64'), true
FROM records r
JOIN members m ON m.family_id = r.family_id AND r.zone_name = 'member-' || m.member_id::text
WHERE r.record_name = 'parent-pin' AND r.record_type = 'DeviceSettings' AND NOT r.deleted AND r.fields ? 'hash'
ON CONFLICT (family_id, member_id) DO NOTHING;

"""####
        ),
        Migration(
            version: 19,
            name: "dashboard_sessions",
            sql: ####"""
-- The web dashboard's sessions (docs/dashboard.md): a browser signed in holds a session token in
-- its cookie, not its device credential, so that the cookie is no /v1 credential and the session
-- ends on the server: idle a week, 30 days old, signed out, or its device revoked. The device
-- credential the dashboard acts with in process is kept sealed (AES-GCM under a key derived from
-- the server's secret), so that this table alone gives no device's credential away.
CREATE TABLE dashboard_sessions (
    family_id         uuid        NOT NULL,
    session_id        uuid        NOT NULL,
    device_id         uuid        NOT NULL,
    token_hash        bytea       NOT NULL CHECK (octet_length(token_hash) = 32),
    sealed_credential bytea       NOT NULL,
    created_at        timestamptz NOT NULL,
    last_seen_at      timestamptz NOT NULL,
    CONSTRAINT dashboard_sessions_pkey PRIMARY KEY (family_id, session_id),
    FOREIGN KEY (family_id, device_id) REFERENCES devices (family_id, device_id) ON DELETE CASCADE
);
-- The hourly purge of sessions past their lifetimes.
CREATE INDEX dashboard_sessions_seen_idx ON dashboard_sessions (last_seen_at);

"""####
        ),
    ]
}
