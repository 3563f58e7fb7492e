import Hummingbird

extension Request {
    /// Whether the client asks for `mediaType` before JSON (by the order of the Accept header's
    /// media ranges): the reports' CSV, the health export's text.
    func prefers(_ mediaType: String) -> Bool {
        let accept = headers[.accept]?.lowercased() ?? ""
        guard let wanted = accept.range(of: mediaType) else { return false }
        guard let json = accept.range(of: "application/json") else { return true }
        return wanted.lowerBound < json.lowerBound
    }
}
