/// The dashboard's strings, one catalog per language (`WebCatalog+English.swift`,
/// `WebCatalog+Korean.swift`): keys are the templates' `{{frame.t.key}}` and the controllers'
/// `strings["key"]`; values may hold `{0}`, `{1}`… for what `WebStrings.format` puts in.
enum WebCatalog {
    static func of(_ language: WebLanguage) -> [String: String] {
        switch language {
        case .en: english
        case .ko: korean
        }
    }
}
