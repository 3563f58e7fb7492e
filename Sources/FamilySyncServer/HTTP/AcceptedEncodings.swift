import Foundation

/// The content codings an `Accept-Encoding` header allows (RFC 9110 §12.5.3): a coding named with
/// a weight above zero, or, when it is not named, `*` with one.
struct AcceptedEncodings {
    private var weights: [String: Double] = [:]

    init(_ values: [String]) {
        for entry in WeightedList(values).entries { weights[entry.value] = entry.weight }
    }

    func accepts(_ coding: String) -> Bool {
        if let weight = weights[coding] ?? (coding == "gzip" ? weights["x-gzip"] : nil) { return weight > 0 }
        return (weights["*"] ?? 0) > 0
    }
}
