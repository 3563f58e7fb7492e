import Foundation

/// A secret given either as a file (its flag, so that it stays out of the process list) or as its
/// environment variable's value: the push webhook's secret, the operator token.
enum SecretSetting {
    /// The file's text when `file` is given, else the variable's, trimmed of white space; nil
    /// when neither is given (an empty variable counts as not given where `emptyIsUnset`).
    static func text(
        file: String?, variable: String, environment: [String: String], named name: String, emptyIsUnset: Bool = false
    ) throws(OperatorError) -> String? {
        var text = environment[variable].flatMap { emptyIsUnset && $0.isEmpty ? nil : $0 }
        if let file {
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw .configuration("the \(name) file \(file) cannot be read: \(error)")
            }
        }
        return text?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
