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
