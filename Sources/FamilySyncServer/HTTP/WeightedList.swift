/// An HTTP header's list of values with weights (RFC 9110 §12.4.2), `Accept` and
/// `Accept-Encoding` alike: `text/csv;q=0.5, application/json`, in the order sent, values in lower
/// case. A value without `q` weighs 1; a `q` that does not parse as one weighs 0 (not acceptable),
/// as the safe reading of a malformed weight.
struct WeightedList {
    struct Entry: Equatable {
        var value: String
        var weight: Double
    }

    let entries: [Entry]

    init(_ headerValues: [String]) {
        var entries: [Entry] = []
        for element in headerValues.flatMap({ $0.split(separator: ",") }) {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let value = parts.first, !value.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
            }
            entries.append(Entry(value: value, weight: weight))
        }
        self.entries = entries
    }
}
