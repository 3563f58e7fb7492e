@testable import FamilySyncPostgres
import Testing

@Suite struct SQLStatementSplitterTests {
    @Test func splitsAtTopLevelSemicolons() {
        #expect(SQLStatementSplitter.split("CREATE TABLE a (x int);\nCREATE INDEX ON a (x);") == [
            "CREATE TABLE a (x int)", "CREATE INDEX ON a (x)",
        ])
    }

    @Test func keepsSemicolonsInStringsIdentifiersAndComments() {
        let sql = """
            -- a comment; not a split
            INSERT INTO t VALUES ('a;b', 'it''s; fine', E'back\\'slash;');
            /* block; /* nested; */ still comment; */
            SELECT "odd;name" FROM t;
            """
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 2)
        #expect(statements[0].hasSuffix("E'back\\'slash;')"))
        #expect(statements[1].hasSuffix("SELECT \"odd;name\" FROM t"))
    }

    @Test func keepsDollarQuotedBodiesWhole() {
        let sql = """
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $fn$
            BEGIN
              PERFORM 1; RETURN $$x;$$::text::int;
            END
            $fn$;
            SELECT $1;
            """
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 2)
        #expect(statements[0].hasSuffix("$fn$"))
        #expect(statements[1] == "SELECT $1")
    }

    @Test func dropsStatementsOfOnlyCommentsAndSpace() {
        #expect(SQLStatementSplitter.split("-- only a comment\n;  ;\n/* x */") == [])
        #expect(SQLStatementSplitter.split("SELECT 1; -- trailing") == ["SELECT 1"])
    }
}
