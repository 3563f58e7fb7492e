/// Splits a migration file into statements at top-level semicolons.
///
/// PostgresNIO speaks only the extended query protocol, which runs one statement per query, so a
/// migration file is split here. Semicolons inside quoted strings, quoted identifiers, dollar-quoted
/// bodies (`$$ … $$`, `$fn$ … $fn$`) and comments do not split. Statements that hold only comments
/// or white space are dropped.
enum SQLStatementSplitter {
    static func split(_ sql: String) -> [String] {
        let characters = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var hasCode = false
        var index = 0

        func flush() {
            let statement = String(current).trimmingWhitespace()
            if hasCode, !statement.isEmpty { statements.append(statement) }
            current = String.UnicodeScalarView()
            hasCode = false
        }
        func copy(until end: Int) {
            current.append(contentsOf: characters[index..<min(end, characters.count)])
            index = min(end, characters.count)
        }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int? {
            guard needle.count <= characters.count else { return nil }
            var position = start
            while position + needle.count <= characters.count {
                if Array(characters[position..<position + needle.count]) == needle { return position }
                position += 1
            }
            return nil
        }

        while index < characters.count {
            let character = characters[index]
            let next: Unicode.Scalar? = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "-" where next == "-":
                let end = find(["\n"], from: index) ?? characters.count
                copy(until: end)
            case "/" where next == "*":
                // Block comments nest in PostgreSQL.
                var depth = 0
                var position = index
                while position < characters.count {
                    if characters[position] == "/", position + 1 < characters.count, characters[position + 1] == "*" {
                        depth += 1
                        position += 2
                    } else if characters[position] == "*", position + 1 < characters.count, characters[position + 1] == "/" {
                        depth -= 1
                        position += 2
                        if depth == 0 { break }
                    } else {
                        position += 1
                    }
                }
                copy(until: position)
            case "'", "\"":
                // A doubled quote escapes itself; E'…' strings also escape with a backslash.
                let backslashEscapes = character == "'" && index > 0 && (characters[index - 1] == "E" || characters[index - 1] == "e")
                var position = index + 1
                while position < characters.count {
                    if backslashEscapes, characters[position] == "\\" {
                        position += 2
                        continue
                    }
                    if characters[position] == character {
                        if position + 1 < characters.count, characters[position + 1] == character {
                            position += 2
                            continue
                        }
                        break
                    }
                    position += 1
                }
                hasCode = true
                copy(until: position + 1)
            case "$":
                if let tag = dollarTag(characters, at: index),
                    let close = find(tag, from: index + tag.count)
                {
                    hasCode = true
                    copy(until: close + tag.count)
                } else {
                    hasCode = true
                    copy(until: index + 1)
                }
            case ";":
                index += 1
                flush()
            default:
                if !character.properties.isWhitespace { hasCode = true }
                copy(until: index + 1)
            }
        }
        flush()
        return statements
    }

    /// `$$` or `$tag$` starting at `index`, where a tag is an identifier.
    private static func dollarTag(_ characters: [Unicode.Scalar], at index: Int) -> [Unicode.Scalar]? {
        if index > 0, characters[index - 1].properties.isAlphabetic || characters[index - 1] == "_" || ("0"..."9").contains(characters[index - 1]) {
            return nil  // part of an identifier such as a$b
        }
        var position = index + 1
        while position < characters.count {
            let character = characters[position]
            if character == "$" { return Array(characters[index...position]) }
            let isTagCharacter = character.properties.isAlphabetic || character == "_"
                || (position > index + 1 && ("0"..."9").contains(character))
            guard isTagCharacter else { return nil }
            position += 1
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
