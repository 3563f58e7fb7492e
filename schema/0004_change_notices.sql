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
