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
