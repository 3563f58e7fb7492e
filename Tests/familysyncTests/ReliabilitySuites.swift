import Testing

/// The reliability suites (a server process each, killed, starved of its database, loaded, fed
/// hostile bytes) run one after another: together they would take both cores of a CI machine from
/// the rest of the tests.
@Suite(.serialized) enum ReliabilitySuites {}
