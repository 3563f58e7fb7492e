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
