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
