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
