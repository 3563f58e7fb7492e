-- FamilySync on Citus (docs/operations.md, "Outgrowing one PostgreSQL"). Run once on the
-- coordinator, as the database's owner, after `familysync migrate` has made the schema there:
--   familysync migrate --database-url postgres://…coordinator…/familysync
--   psql -d familysync -f deploy/citus.sql
-- Every table of a family's data is distributed by family_id and co-located with `families`, so
-- a request (which names one family) runs on the one node that holds that family. The lookup
-- tables are distributed by what they look up. SchemaDistributionTests reads this file and fails
-- if a table is missing here or placed otherwise than the catalog allows.
CREATE EXTENSION IF NOT EXISTS citus;

BEGIN;
-- The server's own (the change-token key): a copy on every node.
SELECT create_reference_table('server_secrets');
-- schema_migrations stays a local table of the coordinator, where `familysync migrate` runs.

-- A family's data, together.
SELECT create_distributed_table('families', 'family_id');
SELECT create_distributed_table('members', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('devices', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('pairings', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('zones', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('records', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('apple_accounts', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('device_health', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('device_health_days', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('device_heartbeat_gaps', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('device_errors', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('parent_pin_attempts', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('device_push_tokens', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('push_outbox', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('family_retention', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('audit_events', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('audit_reads', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('idempotency_keys', 'family_id', colocate_with => 'families');
SELECT create_distributed_table('dashboard_sessions', 'family_id', colocate_with => 'families');

-- Lookups from something else to a family, each by its own key.
SELECT create_distributed_table('recovery_codes', 'code_hash', colocate_with => 'none');
SELECT create_distributed_table('apple_subjects', 'apple_sub', colocate_with => 'none');
SELECT create_distributed_table('sign_ins', 'code_hash', colocate_with => 'none');
COMMIT;
