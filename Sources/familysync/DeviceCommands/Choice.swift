import Foundation

/// A flag's value that must be one of an enumeration's names (a role, a status, a platform).
func choice<Value: RawRepresentable & CaseIterable>(_ text: String, as _: Value.Type = Value.self, for what: String) throws -> Value where Value.RawValue == String {
    guard let value = Value(rawValue: text) else {
        throw OperatorError.configuration("\(what) is one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
    }
    return value
}

/// An id given on the command line (a pairing's, a command's).
func identifier(_ text: String, of what: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else { throw OperatorError.configuration("'\(text)' is not \(what) id") }
    return id
}
