/// The built-in table of common apps' bundle ids and their categories (PROTOCOL §9.1), for usage
/// the device does not categorise itself and that no `AppConfiguration` names. A family's own
/// configuration always wins; an app in neither is `other`. docs/categories.md lists the table.
public enum BundleCategories {
    public static func category(of bundleIdentifier: String) -> CategoryID? {
        table[bundleIdentifier.lowercased()].flatMap(CategoryID.init(rawValue:))
    }

    /// Lower-case bundle ids.
    public static let table: [String: String] = [
        // Social media
        "com.burbn.instagram": "social_media", "com.zhiliaoapp.musically": "social_media", "com.toyopagroup.picaboo": "social_media",
        "com.facebook.facebook": "social_media", "com.atebits.tweetie2": "social_media", "com.hammerandchisel.discord": "social_media",
        "com.reddit.reddit": "social_media", "com.pinterest": "social_media", "com.tumblr.tumblr": "social_media",
        "net.whatsapp.whatsapp": "social_media", "ph.telegra.telegraph": "social_media", "com.facebook.messenger": "social_media",
        "com.linkedin.linkedin": "social_media", "com.bereal.ft": "social_media", "com.burbn.barcelona": "social_media",
        "com.kik.chat": "social_media", "jp.naver.line": "social_media", "com.tencent.xin": "social_media",
        "org.whispersystems.signal": "social_media", "com.yubo.app": "social_media", "com.vsco.cam": "social_media",
        "com.zenly.zenly": "social_media", "com.mewe.mewe": "social_media", "com.bluesky.bsky": "social_media",
        // Entertainment
        "com.google.ios.youtube": "entertainment", "com.netflix.netflix": "entertainment", "com.disney.disneyplus": "entertainment",
        "com.hulu.plus": "entertainment", "com.amazon.aiv.aivapp": "entertainment", "com.spotify.client": "entertainment",
        "tv.twitch": "entertainment", "com.apple.tv": "entertainment", "com.apple.music": "entertainment",
        "com.google.ios.youtubekids": "entertainment", "com.pandora": "entertainment", "com.soundcloud.touchapp": "entertainment",
        "com.crunchyroll.iphone": "entertainment", "com.wbd.stream": "entertainment", "com.peacocktv.peacockios": "entertainment",
        "com.plutotv.pluto": "entertainment", "com.vimeo": "entertainment", "com.audible.iphone": "entertainment",
        // Gaming
        "com.roblox.robloxmobile": "gaming", "com.mojang.minecraftpe": "gaming", "com.supercell.laser": "gaming",
        "com.supercell.magic": "gaming", "com.supercell.scroll": "gaming", "com.epicgames.fortnite": "gaming",
        "com.innersloth.amongus": "gaming", "com.king.candycrushsaga": "gaming", "com.activision.callofduty.shooter": "gaming",
        "com.mihoyo.genshinimpact": "gaming", "com.tencent.ig": "gaming", "com.kiloo.subwaysurf": "gaming",
        "com.outfit7.mytalkingtom2": "gaming", "com.niantic.pokemongo": "gaming", "com.ea.ios.fifamobile": "gaming",
        "com.gameloft.asphalt9": "gaming", "com.ketchapp.stack": "gaming", "com.halfbrick.fruitninja": "gaming",
        "com.rovio.angrybirds2": "gaming", "com.chess.iphone": "gaming", "com.playrix.gardenscapes": "gaming",
        "com.miniclip.8ballpoolmult": "gaming", "com.zynga.wordswithfriends3": "gaming", "com.voodoo.paperio2": "gaming",
        // Productivity
        "com.microsoft.office.word": "productivity", "com.microsoft.office.excel": "productivity", "com.microsoft.office.powerpoint": "productivity",
        "com.microsoft.office.outlook": "productivity", "com.microsoft.skype.teams": "productivity", "com.google.docs": "productivity",
        "com.google.sheets": "productivity", "com.google.drive": "productivity", "com.google.gmail": "productivity",
        "com.google.calendar": "productivity", "com.apple.pages": "productivity", "com.apple.keynote": "productivity",
        "com.apple.numbers": "productivity", "com.apple.mobilenotes": "productivity", "com.notion.notion": "productivity",
        "com.evernote.iphone.evernote": "productivity", "com.getdropbox.dropbox": "productivity", "com.tinyspeck.chatlyio": "productivity",
        "us.zoom.videomeetings": "productivity", "com.todoist.ios": "productivity", "com.agilebits.onepassword-ios": "productivity",
        // Learning
        "org.khanacademy.khan-academy": "learning", "org.khanacademy.khanacademy": "learning", "com.duolingo.duolingoapp": "learning",
        "com.quizlet.quizletandroid": "learning", "com.quizlet.quizlet": "learning", "com.photomath.photomath": "learning",
        "com.brainly.brainly": "learning", "com.google.classroom": "learning", "com.instructure.icanvas": "learning",
        "com.babbel.mobile": "learning", "com.memrise.ios.memrisecompanion": "learning", "com.sololearn.sololearn": "learning",
        "com.mathway.mathway": "learning", "com.coursera.coursera": "learning", "org.edx.mobile": "learning",
        "com.prodigygame.prodigy": "learning", "com.abcmouse.abcmouse": "learning", "com.epicreading.epic": "learning",
        "com.apple.swiftplaygrounds": "learning", "org.wikimedia.wikipedia": "learning", "com.scratchjr.scratchjr": "learning",
        // Shopping
        "com.amazon.amazon": "shopping", "com.ebay.iphone": "shopping", "com.contextlogic.wish": "shopping",
        "com.shein.shein": "shopping", "com.einnovation.temu": "shopping", "com.etsy.etsyforios": "shopping",
        "com.target.target": "shopping", "com.walmart.electronics": "shopping", "com.alibaba.aliexpresshd": "shopping",
        // News and reading
        "com.apple.news": "news_reading", "com.nytimes.nytimes": "news_reading", "com.cnn.iphone": "news_reading",
        "com.bbc.news": "news_reading", "com.google.news": "news_reading", "com.medium.reader": "news_reading",
        "com.amazon.lassen": "news_reading", "com.apple.ibooks": "news_reading", "com.wattpad.wattpad": "news_reading",
        "com.theguardian.theguardian": "news_reading", "com.flipboard.flipboard-ipad": "news_reading",
        // Health and fitness
        "com.strava.stravaride": "health_fitness", "com.nike.nikeplus-gps": "health_fitness", "com.myfitnesspal.mfp": "health_fitness",
        "com.calm.calmapp": "health_fitness", "com.getsomeheadspace.headspace": "health_fitness", "com.apple.health": "health_fitness",
        "com.fitbit.fitbitmobile": "health_fitness", "com.peloton.ios": "health_fitness", "com.nike.ntc": "health_fitness",
        "com.apple.fitness": "health_fitness",
    ]
}

/// Which category a usage record or daily total counts in (PROTOCOL §9.1): the one it names; else
/// the device's `AppConfiguration` of its `logicalID`; else the built-in table by bundle id; else
/// `other`. What is chosen is stored on the record, so that re-assigning an app later does not
/// rewrite the days already counted.
public enum CategoryResolver {
    public static func category(named: CategoryID?, logicalID: String, bundleIdentifier: String?, configured: [String: CategoryID]) -> CategoryID {
        if let named { return named }
        if let configured = configured[logicalID] { return configured }
        if let bundleIdentifier, let known = BundleCategories.category(of: bundleIdentifier) { return known }
        return .other
    }
}
