import Foundation
import Logging

/// One JSON object a line on standard error, for log collectors:
/// `{"timestamp","level","label","message", …metadata}`.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var object: [String: Any] = [:]
        let provided = metadataProvider?.get() ?? [:]
        for (key, value) in provided.merging(metadata, uniquingKeysWith: { $1 }).merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.plain(value)
        }
        object["timestamp"] = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        object["level"] = event.level.rawValue
        object["label"] = label
        object["message"] = event.message.description
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(0x0A)
        FileHandle.standardError.write(data)
    }

    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(plain)
        case .dictionary(let dictionary): dictionary.mapValues(plain)
        }
    }
}
