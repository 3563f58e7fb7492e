-- FamilySync schema, migration 0005: configuration commands (PROTOCOL §7.1).
--
-- A command is a ConfigurationCommand record `command-<commandId>` in its child's zone;
-- `POST /v1/commands/{id}/…` names only the command, so it is found by record name within the
-- caller's family.

CREATE INDEX records_name_idx ON records (family_id, record_name);
