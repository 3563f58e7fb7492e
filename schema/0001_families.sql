-- FamilySync schema, migration 0001: families.
--
-- Rules for every migration in this folder (they keep the data distributable by family, as
-- Citus distributes a table by one column):
--   * every table carries family_id uuid NOT NULL;
--   * every primary key, unique constraint and index begins with family_id;
--   * foreign keys between family tables include family_id.
-- The exceptions are schema_migrations (owned by the migrator) and server_secrets (0003), which describe the
-- server itself, not a family.
--
-- Migrations are applied in order of their number, each in its own transaction, and recorded
-- in schema_migrations. Never edit a migration that has been released: add a new one. The
-- binary carries these files (Sources/FamilySyncPostgres/EmbeddedMigrations.swift, written by
-- scripts/embed-migrations), and a test proves the two are the same.

CREATE TABLE families (
    family_id  uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT families_pkey PRIMARY KEY (family_id)
);
