/// A failure the operator must fix, printed as one line; `exitCode` 2 means bad configuration.
struct OperatorError: Error, CustomStringConvertible {
    var description: String
    var exitCode: Int32

    static func configuration(_ reason: String) -> OperatorError {
        OperatorError(description: reason, exitCode: 2)
    }

    static func runtime(_ reason: String) -> OperatorError {
        OperatorError(description: reason, exitCode: 1)
    }
}
