-- FamilySync schema, migration 0014: memory use in fractions of a megabyte (PROTOCOL §10).
--
-- Monitoring extensions measure their memory as a floating-point number of megabytes (4.1), and
-- the heartbeat now takes it as such; an integer column would refuse or round what was measured.
-- double precision, not numeric: the value is a binary floating-point number from the device to
-- the answer (Swift's Double, JSON's number), and float8 holds every such value exactly, so what is
-- sent is what is read back; numeric would store a decimal rendering of it for no gain. Stored
-- integers convert exactly.
ALTER TABLE device_health ALTER COLUMN memory_usage_mb TYPE double precision;
ALTER TABLE device_errors ALTER COLUMN memory_usage_mb TYPE double precision;
