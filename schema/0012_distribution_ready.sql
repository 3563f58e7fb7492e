-- Ready for a PostgreSQL distributed by family (Citus, deploy/citus.sql; docs/operations.md,
-- "Outgrowing one PostgreSQL"): every table of a family's data carries family_id in its primary
-- key, its unique constraints and its foreign keys, so that each family's rows live together.
-- Three lookups that go from something else to a family cannot: a recovery code, an Apple
-- account and a push token are unique across families. The first two move to lookup tables
-- keyed by what is looked up (distributed by that key); the third keeps its index, no longer
-- unique, since registering a token already removes it from every other device first.
-- SchemaDistributionTests reads the catalog and fails on a table that breaks this.

-- A family's recovery code (§13), found by its hash. One code a family: a new one replaces it.
CREATE TABLE recovery_codes (
    code_hash bytea NOT NULL PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    family_id uuid  NOT NULL
);
INSERT INTO recovery_codes (code_hash, family_id)
SELECT recovery_code_hash, family_id FROM families WHERE recovery_code_hash IS NOT NULL;
CREATE INDEX recovery_codes_family_idx ON recovery_codes (family_id);
ALTER TABLE families DROP COLUMN recovery_code_hash;

-- The family an Apple account is linked to (its member is in apple_accounts, by family).
CREATE TABLE apple_subjects (
    apple_sub text NOT NULL PRIMARY KEY,
    family_id uuid NOT NULL
);
INSERT INTO apple_subjects (apple_sub, family_id) SELECT apple_sub, family_id FROM apple_accounts;
CREATE INDEX apple_subjects_family_idx ON apple_subjects (family_id);
DROP INDEX apple_accounts_sub_idx;

DROP INDEX device_push_tokens_token_idx;
CREATE INDEX device_push_tokens_token_idx ON device_push_tokens (provider, token);

ALTER TABLE push_outbox DROP CONSTRAINT push_outbox_pkey;
ALTER TABLE push_outbox ADD PRIMARY KEY (family_id, push_id);
