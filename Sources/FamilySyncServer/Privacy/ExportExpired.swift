import AsyncAlgorithms
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// An export not read whole within `ExportController.deadline`: its connection is closed before
/// the archive's end.
struct ExportExpired: Error {}
