import Testing

/// The reliability suites (server processes killed, starved of their database, loaded, fed
/// hostile bytes, behind a pooler and a proxy, restored from a dump) run one after another: together they would take both cores of a CI machine from
/// the rest of the tests.
@Suite(.serialized) enum ReliabilitySuites {}
