-- FamilySync schema, migration 0005: configuration commands and usage (PROTOCOL §7).
--
-- A command is a ConfigurationCommand record `command-<commandId>` in its child's zone;
-- `POST /v1/commands/{id}/…` names only the command, so it is found by record name within the
-- caller's family.
CREATE INDEX records_name_idx ON records (family_id, record_name);

-- Usage records keep their instants as fixed-width UTC text (`2026-11-21T08:15:00.000Z`), so text
-- order is time order: summaries find the sessions overlapping a day, and parents read usage by
-- instant range, through this index.
CREATE INDEX records_usage_end_idx ON records (family_id, zone_name, (fields ->> 'sessionEnd')) WHERE record_type = 'UsageRecord';
