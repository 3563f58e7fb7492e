/// The known record types' names (PROTOCOL §5.2), as every target spells them: a misspelt name is
/// a compile error, not a record that matches nothing. `RecordTypeRegistry` declares each one;
/// `RecordTypeNameTests` holds the two lists equal.
public enum RecordTypeName {
    public static let appConfiguration = "AppConfiguration"
    public static let deviceSettings = "DeviceSettings"
    public static let configurationCommand = "ConfigurationCommand"
    public static let usageRecord = "UsageRecord"
    public static let dailyTotals = "DailyTotals"
    public static let dailySummary = "DailySummary"
    public static let weeklySummary = "WeeklySummary"
    public static let deviceHealth = "DeviceHealth"
    public static let category = "Category"
    public static let schedule = "Schedule"
    public static let shieldConfiguration = "ShieldConfiguration"
    public static let budget = "Budget"
    public static let alert = "Alert"

    /// Every name above.
    public static let all: Set<String> = [
        appConfiguration, deviceSettings, configurationCommand, usageRecord, dailyTotals, dailySummary, weeklySummary, deviceHealth, category, schedule,
        shieldConfiguration, budget, alert,
    ]
}
