import Foundation

/// How a shield looks (PROTOCOL §11): a `ShieldConfiguration` record `shield-<id>` in a member's
/// zone, written by parents, named by schedules' `shieldConfigurationID`.
public enum ShieldConfigurationFields {
    public static func recordName(_ id: String) -> String { "shield-\(id)" }

    /// `#RRGGBB` or `#RRGGBBAA`, hexadecimal digits of either case.
    static func isColour(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.hasPrefix("#") && (digits.count == 6 || digits.count == 8) && digits.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
        }
    }

    /// UIKit's blur styles a shield may use.
    public static let blurStyles: Set = [
        "extraLight", "light", "dark", "regular", "prominent", "systemUltraThinMaterial", "systemThinMaterial", "systemMaterial",
        "systemThickMaterial", "systemChromeMaterial", "systemUltraThinMaterialLight", "systemThinMaterialLight", "systemMaterialLight",
        "systemThickMaterialLight", "systemChromeMaterialLight", "systemUltraThinMaterialDark", "systemThinMaterialDark", "systemMaterialDark",
        "systemThickMaterialDark", "systemChromeMaterialDark",
    ]

    static let colour = FieldRules.Kind.text(isColour, "a colour, #RRGGBB or #RRGGBBAA")

    static let rules = FieldRules(RecordTypeName.shieldConfiguration, [
        "shieldConfigurationID": (.text(Schedule.isIdentifier, "1–64 of a-z, 0-9, _ and -"), true),
        "title": (.string(1...100), true),
        "subtitle": (.string(0...300), false),
        "primaryButtonLabel": (.string(1...40), true),
        "secondaryButtonLabel": (.string(1...40), false),
        "iconSymbol": (.string(1...100), false),
        "backgroundBlurStyle": (.oneOf(blurStyles), false),
        "backgroundColor": (colour, false),
        "titleColor": (colour, false),
        "subtitleColor": (colour, false),
        "primaryButtonBackgroundColor": (colour, false),
    ])

    /// §11's rules, and the record named after its id.
    public static func validate(_ fields: [String: JSONValue], recordName: String, field: String) throws(FamilySyncError) {
        try rules.validate(fields, field: field)
        guard case .string(let id)? = fields["shieldConfigurationID"], recordName == Self.recordName(id) else {
            throw .badRequest("A ShieldConfiguration record is named shield-<its shieldConfigurationID>.", field: "\(field).shieldConfigurationID")
        }
    }
}
