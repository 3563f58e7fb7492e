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
