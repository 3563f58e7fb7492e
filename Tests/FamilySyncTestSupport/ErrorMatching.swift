import FamilySyncCore

/// For `#expect(performing:throws:)`: true for a `FamilySyncError` with this code.
public func isFamilySyncError(_ code: FamilySyncError.Code) -> @Sendable (any Error) -> Bool {
    { error in (error as? FamilySyncError)?.code == code }
}
