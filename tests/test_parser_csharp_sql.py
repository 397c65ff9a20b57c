"""Inline SQL in C# whose names are built at run time: a schema interpolated into a name."""
from __future__ import annotations

from ragstream.index.csharp.parser import parse_csharp

SOURCE = '''namespace N { class Store { void Write(IDbConnection c, string schema, int id) {
  c.Execute($@"insert into [{schema}].Job (A) values ({id})");
  c.Execute($"select * from {schema}.[State] where Id = {id}");
} } }'''


def test_an_interpolated_schema_leaves_the_table_name_unqualified():
    parsed = parse_csharp("Store.cs", SOURCE)
    [method] = [n for n in parsed.nodes if n.kind == "METHOD"]
    assert method.attrs["inline_sql"] == ["insert into Job (A) values (@p0)", "select * from [State] where Id = @p0"]
    tables = {(r.edge_type, r.target) for r in parsed.references if r.target_language == "sql"}
    assert tables == {("WRITES", "Job"), ("READS", "State")}
    # the hole that is a value stays a parameter: no table is named after it
    assert not any("@p" in r.target or "schema" in r.target for r in parsed.references)


HELPER_BUILT = '''namespace N { class Store {
  void Add(IDbConnection c, Storage s, int id) {
    var query = s.GetQueryFromTemplate(static schema => $@"insert into [{schema}].JobQueue (JobId) values (@id)");
    c.Execute(query, new { id });
    var stats = s.GetQueryFromTemplate(static schema => $@"
set transaction isolation level read committed;
select count(Id) from [{schema}].Job where StateName = N'Failed';");
    var message = "select the queue you want"; // prose, not SQL
    var advice = "set it to 5; then delete it"; // prose after a session-like start
    Log("Update failed; delete the row by hand");
  }
  void Read(IDbConnection c) { c.Query<int>("select Id from [HangFire].[Job]"); }
} }'''


def test_a_string_that_reads_as_sql_is_sql_even_when_a_helper_builds_it():
    parsed = parse_csharp("Store.cs", HELPER_BUILT)
    add = {(r.edge_type, r.target, r.attrs.get("via")) for r in parsed.references
           if r.source.endswith("Store.Add|METHOD") and r.target_language == "sql"}
    # a session setting before the statements (`set ...;`) still reads as SQL; no table is named
    # after prose words
    assert add == {("WRITES", "JobQueue", "sql_literal"), ("READS", "Job", "sql_literal")}
    read = [r for r in parsed.references if r.source.endswith("Store.Read|METHOD") and r.target_language == "sql"]
    # passed to Query: found once, as a data-access call's argument, not again as a literal
    assert [(r.edge_type, r.target, r.attrs) for r in read] == [("READS", "HangFire.Job", {})]


CONDITIONAL = '''namespace N { class Queue {
#if FEATURE_TX
    public void Enqueue(DbConnection c, string queue)
#else
    public void Enqueue(IDbConnection c, string queue)
#endif
    {
        c.Execute("insert into JobQueue (Queue) values (@queue)", new { queue });
    }
    public void Later() { }
} }'''


def test_an_if_else_around_a_signature_keeps_the_class_whole():
    parsed = parse_csharp("Queue.cs", CONDITIONAL)
    methods = {n.name: n for n in parsed.nodes if n.kind == "METHOD"}
    assert set(methods) == {"N.Queue.Enqueue", "N.Queue.Later"} and parsed.warnings == []
    assert (methods["N.Queue.Enqueue"].start_line, methods["N.Queue.Later"].start_line) == (3, 10)
    assert "DbConnection c" in methods["N.Queue.Enqueue"].signature  # the #if branch is read
    assert ("WRITES", "JobQueue") in {(r.edge_type, r.target) for r in parsed.references}


SQL_BUILDER = '''namespace N { class Lists {
  IEnumerable<Row> Recent(IDbConnection c, bool mine) {
    var builder = new SqlBuilder();
    var pager = builder.AddTemplate(@"
      SELECT /**select**/, ROW_NUMBER() OVER(/**orderby**/) AS RowNumber
      FROM QuerySets qs /**join**/ /**leftjoin**/ /**where**/");
    builder.Select("qs.Id");
    builder.Join("Revisions r ON r.Id = qs.CurrentRevisionId");
    builder.LeftJoin("Users u ON qs.OwnerId = u.Id");
    builder.Where("qs.Hidden = 0");
    builder.OrderBy("qs.LastActivity DESC");
    var other = new SqlBuilder();
    other.Join("Sites s ON s.Id = 1");
    return c.Query<Row>(pager.RawSql, pager.Parameters);
  }
  IEnumerable<Row> Filtered(IEnumerable<Row> rows) => rows.Where(r => r.Hidden).OrderBy(r => r.Id);
} }'''


def test_sql_composed_with_dapper_sql_builder_reads_its_template_and_clauses_tables():
    parsed = parse_csharp("Lists.cs", SQL_BUILDER)
    recent = {(r.edge_type, r.target, r.attrs.get("via")) for r in parsed.references
              if r.source.endswith("Lists.Recent|METHOD") and r.target_language == "sql" and r.edge_type == "READS"}
    # the template's FROM and its own builder's joins; a join added to another builder is not this query's
    assert recent == {("READS", t, "sql_builder") for t in ("QuerySets", "Revisions", "Users")}
    # LINQ's Where/OrderBy on a sequence take lambdas: no SQL
    assert not [r for r in parsed.references if r.source.endswith("Lists.Filtered|METHOD") and r.target_language == "sql"]


def test_an_insert_that_says_what_to_do_with_an_existing_row_and_a_guarded_delete_are_sql():
    """SQLite's `INSERT OR IGNORE`, MySQL's `INSERT IGNORE ... SET` and `REPLACE INTO`, and a
    statement behind `IF NOT EXISTS (...)` (TShock's group store, NuGetGallery's package delete)
    were no SQL to the literal test: the method wrote no table. `IGNORE` names no table."""
    parsed = parse_csharp("Groups.cs", '''namespace N { class Groups {
    void Add(IDbConnection db) {
        var sql = db.GetSqlType() == SqlType.Sqlite
            ? "INSERT OR IGNORE INTO GroupList (GroupName, Parent) VALUES (@0, @1);"
            : "INSERT IGNORE INTO GroupList SET GroupName=@0, Parent=@1;";
        db.Execute(sql);
    }
    void Save(IDbConnection db) { db.Execute("REPLACE INTO Settings (Name, Value) VALUES (@0, @1)"); }
    const string Purge = "IF NOT EXISTS (SELECT 1 FROM Packages WHERE [Key] = @key) BEGIN DELETE FROM PackageDeletes WHERE [Key] = @key END";
    void Clean(IDbConnection db) { db.Execute(Purge); }
    void Say(ILog log) { log.Info("replace the group name, then select it from the list"); }
} }''')
    edges = {(r.source.rsplit(".", 1)[-1], r.edge_type, r.target) for r in parsed.references if r.target_language == "sql"}
    assert {("Add|METHOD", "WRITES", "GroupList"), ("Save|METHOD", "WRITES", "Settings"),
            ("Clean|METHOD", "READS", "Packages"), ("Clean|METHOD", "WRITES", "PackageDeletes")} <= edges
    assert not [edge for edge in edges if edge[2] in ("IGNORE", "the", "it") or edge[0] == "Say|METHOD"]


def test_a_dapper_call_with_a_tuple_row_type_reads_its_table():
    """`QueryAsync<(long id, string data)>(sql)`: the grammar reads a tuple type argument of a call as
    comparisons unless the parser names it (`preprocessor.tuple_calls_named`); the call's SQL is then read
    as with a class row type, and a tuple in a declaration is left as written."""
    from ragstream.index.csharp.parser import parse_csharp
    from ragstream.index.csharp.preprocessor import tuple_calls_named

    source = '''using Dapper; namespace N; public class Repo { private readonly DbConnection connection;
public async Task<int> Events() { var rows = await connection.QueryAsync<(long id, string data)>("SELECT id, data FROM nbxv1_evts"); return 0; }
public async Task<int> Nested() { var rows = await connection.QueryAsync<(List<int> ids, string name)>("SELECT ids, name FROM groups"); return 0; }
public (int a, int b) Pair() { List<(int, string)> items = new(); return (1, 2); }
}'''
    reads = {(r.source, r.target) for r in parse_csharp("Repo.cs", source).references if r.edge_type == "READS"}
    assert reads == {("cs:N.Repo.Events|METHOD", "nbxv1_evts"), ("cs:N.Repo.Nested|METHOD", "groups")}
    assert len(tuple_calls_named(source)) == len(source)
    assert "List<(int, string)> items" in tuple_calls_named(source)


def test_a_dapper_command_definition_runs_its_text_or_procedure():
    """`new CommandDefinition(commandText: "fetch_matches", commandType: CommandType.StoredProcedure)`
    runs the procedure; `new CommandDefinition(sql, ...)` runs its SQL."""
    from ragstream.index.csharp.parser import parse_csharp

    source = '''using Dapper; namespace N; public class Repo { private readonly DbConnection connection;
public Task Fetch() => connection.ExecuteAsync(new CommandDefinition(commandText: "fetch_matches", parameters: null, commandType: CommandType.StoredProcedure));
public Task<int> Count() => connection.ExecuteScalarAsync<int>(new CommandDefinition("SELECT COUNT(*) FROM outs", null));
}'''
    made = {(r.source, r.edge_type, r.target) for r in parse_csharp("Repo.cs", source).references
            if r.edge_type in ("READS", "CALLS") and r.target in ("fetch_matches", "outs")}
    assert made == {("cs:N.Repo.Fetch|METHOD", "CALLS", "fetch_matches"), ("cs:N.Repo.Count|METHOD", "READS", "outs")}


def test_sql_held_by_a_projects_statement_object_is_run_by_the_method():
    """`var sql = new SQLString(@"delete ... from bug_posts ...")` then `DbUtil.execute_nonquery(sql)`: a
    project's holder of a statement (its name starts with `sql` / `query`); a driver's parameter and a
    holder's text that is no statement make nothing."""
    from ragstream.index.csharp.parser import parse_csharp

    source = '''namespace btnet { public class Bug {
public static void delete_bug(int id) {
    var sql = new SQLString(@"select bp_id from bug_posts where bp_bug = @bg");
    DataSet ds = btnet.DbUtil.get_dataset(sql);
    sql = new SQLString(@"delete from bug_posts where bp_bug = @bg
delete from bugs where bg_id = @bg");
    btnet.DbUtil.execute_nonquery(sql); }
public static void other(int id) { var p = new SqlParameter("@bg", id); var h = new QueryHint("bug_posts"); } } }'''
    made = {(r.source.rsplit(".", 1)[-1], r.edge_type, r.target) for r in parse_csharp("bug.cs", source).references
            if r.edge_type in ("READS", "WRITES")}
    assert made == {("delete_bug|METHOD", "READS", "bug_posts"), ("delete_bug|METHOD", "WRITES", "bug_posts"),
                    ("delete_bug|METHOD", "WRITES", "bugs")}


def test_sql_appended_to_a_string_builder_is_read_whole_and_run_when_handed_on():
    """`sb.Append("UPDATE scores SET ")...; conn.Execute(sb.ToString())`: the appended text, joined in
    order (a chain appends to the same builder), is SQL the method runs; a builder of text that is no
    SQL, or one never handed on, is no run statement."""
    source = '''namespace N { class Fix {
void Run(IDbConnection conn, int id) {
    var sb = new StringBuilder();
    sb.Append("UPDATE scores ");
    sb.AppendLine("SET pp = NULL").Append($"WHERE id = {id}; ");
    sb.Append("DELETE FROM score_pins WHERE score_id = @id");
    conn.Execute(sb.ToString()); }
string Report(int id) {
    var text = new StringBuilder();
    text.Append("Updated ").Append(id).Append(" rows from scores");
    return text.ToString(); }
void Kept() {
    var q = new StringBuilder("x");
    q.Append("SELECT id FROM osu_builds");
    Log(q); } } }'''
    made = {(r.source.rsplit(".", 1)[-1], r.edge_type, r.target, r.attrs.get("via"))
            for r in parse_csharp("Fix.cs", source).references if r.edge_type in ("READS", "WRITES")}
    assert made == {("Run|METHOD", "WRITES", "scores", "sql_builder"), ("Run|METHOD", "WRITES", "score_pins", "sql_builder"),
                    ("Kept|METHOD", "READS", "osu_builds", "sql_literal")}
