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
