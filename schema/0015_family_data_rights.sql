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
