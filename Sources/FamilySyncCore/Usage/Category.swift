import Foundation

/// A category id (PROTOCOL §9.1): `learning`, `reward`, one of the budget seed's eight content
/// categories, or a family's own `x-…` (1–64 of `[a-z0-9_-]` after `x-`, defined by a `Category`
/// record in the `family` zone before it is used).
public struct CategoryID: RawRepresentable, Hashable, Sendable, Comparable {
    public let rawValue: String

    /// Nil for a string that cannot be a category id (a built-in's name, or `x-` and a valid tail).
    public init?(rawValue: String) {
        guard Self.builtIn[rawValue] != nil || Self.isFamilyDefined(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public static let learning = CategoryID(builtIn: "learning")
    public static let reward = CategoryID(builtIn: "reward")
    public static let other = CategoryID(builtIn: "other")

    private init(builtIn: String) { rawValue = builtIn }

    /// The built-in ids and their kinds: `learning` and `reward` are what they say, the budget
    /// seed's content categories are neutral.
    public static let builtIn: [String: CategoryKind] = Dictionary(uniqueKeysWithValues: builtInList)

    /// The built-in ids in the order a person is shown them, with their kinds.
    static let builtInList: [(String, CategoryKind)] = [
        ("learning", .learning), ("reward", .reward),
        ("social_media", .neutral), ("entertainment", .neutral), ("gaming", .neutral), ("productivity", .neutral),
        ("shopping", .neutral), ("news_reading", .neutral), ("health_fitness", .neutral), ("other", .neutral),
    ]

    /// The built-in categories, in the order a person is shown them.
    public static let builtInOrder: [CategoryID] = builtInList.map { CategoryID(builtIn: $0.0) }

    public var isBuiltIn: Bool { Self.builtIn[rawValue] != nil }

    static func isFamilyDefined(_ text: String) -> Bool {
        guard text.hasPrefix("x-") else { return false }
        let tail = text.utf8.dropFirst(2)
        return (1...64).contains(tail.count) && tail.allSatisfy { byte in
            (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5f || byte == 0x2d
        }
    }

    public static func < (lhs: CategoryID, rhs: CategoryID) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let describedForErrors = "a category id: learning, reward, " + builtIn.keys.filter { $0 != "learning" && $0 != "reward" }.sorted().joined(separator: ", ") + ", or x-… for a family's own"
}

/// Whether a category's time counts as learning, as reward, or as neither (the summaries'
/// `totalLearningSeconds` and `totalRewardSeconds` sum the categories of each kind).
public enum CategoryKind: String, Sendable, Codable, CaseIterable {
    case learning, reward, neutral
}

/// The kinds of a family's categories: the built-ins, and its own from its `Category` records.
public struct CategoryKinds: Sendable, Equatable {
    public var familyDefined: [CategoryID: CategoryKind]

    public init(familyDefined: [CategoryID: CategoryKind] = [:]) {
        self.familyDefined = familyDefined
    }

    /// A built-in's kind (a family's record may rename it, not change its kind); a family's own
    /// category's kind from its record; neutral for one without a record (it cannot have been
    /// stored without one, but a deleted record leaves its usage behind).
    public func kind(of category: CategoryID) -> CategoryKind {
        CategoryID.builtIn[category.rawValue] ?? familyDefined[category] ?? .neutral
    }

    /// Whether a record may name `category`: a built-in, or a family's own that has its record.
    public func isKnown(_ category: CategoryID) -> Bool {
        category.isBuiltIn || familyDefined[category] != nil
    }

    /// Refuses the first of `named` that is a family's own category without its record (§9.1):
    /// 400 naming its member.
    public func check(_ named: [NamedCategory]) throws(FamilySyncError) {
        guard let unknown = named.first(where: { !isKnown($0.category) }) else { return }
        throw .badRequest(
            "The category \(unknown.category.rawValue) has no Category record in the family zone; a parent defines it first.", field: unknown.field
        )
    }

    /// From the `Category` records of the family zone.
    public init(records: [[String: JSONValue]]) {
        var kinds: [CategoryID: CategoryKind] = [:]
        for fields in records {
            guard case .string(let id)? = fields["id"], let category = CategoryID(rawValue: id), !category.isBuiltIn,
                case .string(let kind)? = fields["kind"], let parsed = CategoryKind(rawValue: kind)
            else { continue }
            kinds[category] = parsed
        }
        familyDefined = kinds
    }
}

/// A category a request or a record names, with the member that names it (the `field` of a
/// refusal).
public struct NamedCategory: Sendable, Equatable {
    public var category: CategoryID
    public var field: String

    public init(_ category: CategoryID, field: String) {
        self.category = category
        self.field = field
    }
}

/// Where a record type's fields name categories (declared with the type, `RecordTypeRegistry`).
public enum CategoryMember: Sendable, Equatable {
    /// A member holding one category id (a value that is not one, such as a budget's `"*"`,
    /// names none).
    case single(String)
    /// A member holding a list of them; each is named by its index, `categories[1]`.
    case list(String)

    /// The categories `fields` name here, each with its path under `field` (the record's fields).
    public func named(in fields: [String: JSONValue], field: String) -> [NamedCategory] {
        switch self {
        case .single(let member):
            guard case .string(let text)? = fields[member], let category = CategoryID(rawValue: text) else { return [] }
            return [NamedCategory(category, field: "\(field).\(member)")]
        case .list(let member):
            guard case .array(let values)? = fields[member] else { return [] }
            return values.enumerated().compactMap { index, value in
                guard case .string(let text) = value, let category = CategoryID(rawValue: text) else { return nil }
                return NamedCategory(category, field: "\(field).\(member)[\(index)]")
            }
        }
    }
}

/// The `Category` record (§9.1), `category-<id>` in the `family` zone, written by parents.
public enum CategoryFields {
    public static let rules = FieldRules(RecordTypeName.category, [
        "id": (.text({ CategoryID(rawValue: $0) != nil }, CategoryID.describedForErrors), true),
        "displayName": (.string(1...255), true),
        "sfSymbolName": (.string(0...255), false),
        "kind": (.oneOf(Set(CategoryKind.allCases.map(\.rawValue))), true),
        "defaultDailyMinutes": (.integer(0...1440), false),
    ])

    public static func recordName(_ id: CategoryID) -> String { "category-\(id.rawValue)" }

    /// The rules, and: the record is named after its id; a built-in keeps its kind.
    public static func validate(_ fields: [String: JSONValue], recordName: String, field: String) throws(FamilySyncError) {
        try rules.validate(fields, field: field)
        guard case .string(let text)? = fields["id"], let id = CategoryID(rawValue: text) else { return }
        guard recordName == Self.recordName(id) else {
            throw .badRequest("A Category record is named category-<its id>: \(Self.recordName(id)).", field: "\(field).id")
        }
        if let builtIn = CategoryID.builtIn[id.rawValue], case .string(let kind)? = fields["kind"], kind != builtIn.rawValue {
            throw .badRequest("The built-in category \(id.rawValue) is \(builtIn.rawValue); a record may rename it, not change its kind.", field: "\(field).kind")
        }
    }
}
