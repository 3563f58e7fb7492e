import Foundation

/// The content codings an `Accept-Encoding` header allows (RFC 9110 §12.5.3): a coding named with
/// a weight above zero, or, when it is not named, `*` with one.
struct AcceptedEncodings {
    private var weights: [String: Double] = [:]

    init(_ values: [String]) {
        for element in values.flatMap({ $0.split(separator: ",") }) {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, !coding.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            weights[coding] = weight
        }
    }

    func accepts(_ coding: String) -> Bool {
        if let weight = weights[coding] ?? (coding == "gzip" ? weights["x-gzip"] : nil) { return weight > 0 }
        return (weights["*"] ?? 0) > 0
    }
}
