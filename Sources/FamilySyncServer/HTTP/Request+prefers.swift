import Hummingbird

extension Request {
    /// Whether the client asks for `mediaType` before JSON, by the weights of its `Accept` header
    /// (`q=0` is "not this"): the reports' CSV, the health export's text.
    func prefers(_ mediaType: String) -> Bool {
        AcceptedMediaTypes(headers[values: .accept]).prefers(mediaType, over: "application/json")
    }
}
