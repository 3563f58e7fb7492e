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
