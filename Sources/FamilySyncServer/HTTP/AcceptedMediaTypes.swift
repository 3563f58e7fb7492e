/// The media types an `Accept` header asks for (RFC 9110 §12.5.1), by weight: the reports' CSV and
/// the health export's text against JSON, the default.
struct AcceptedMediaTypes {
    private let list: WeightedList
    /// No `Accept` at all: any type is acceptable, and JSON is answered.
    private let absent: Bool

    init(_ values: [String]) {
        list = WeightedList(values)
        absent = list.entries.isEmpty
    }

    /// The weight of `mediaType` and the position of the range that gives it: the most specific
    /// range that matches (`text/csv`, then `text/*`, then `*/*`); weight 0 when none does.
    func weight(of mediaType: String) -> (weight: Double, position: Int) {
        if absent { return (1, 0) }
        let type = mediaType.lowercased()
        let family = (type.split(separator: "/").first.map(String.init) ?? type) + "/*"
        for candidate in [type, family, "*/*"] {
            if let position = list.entries.firstIndex(where: { $0.value == candidate }) {
                return (list.entries[position].weight, position)
            }
        }
        return (0, Int.max)
    }

    /// Whether to answer `mediaType` rather than `fallback`: it is acceptable (weight above 0) and
    /// weighs more, or as much and is listed first. A client that weighs both alike by one range
    /// (`*/*`) gets the fallback.
    func prefers(_ mediaType: String, over fallback: String) -> Bool {
        let wanted = weight(of: mediaType), other = weight(of: fallback)
        guard wanted.weight > 0 else { return false }
        return wanted.weight > other.weight || (wanted.weight == other.weight && wanted.position < other.position)
    }
}
