"""SQL whose table names code composes with a prefix chosen at run time (BlogEngine's
`string.Format("INSERT INTO {0}Posts ...", this.tablePrefix)`, the prefix read from
configuration): each name is linked to the tables it can be, by its known end, as a guess that
lists its candidates; the prefix that explains the most composed names wins a tie; no match, no
edge and no external table."""
from __future__ import annotations

from tests.test_csharp_sql_values import graph_of, table_edges

SCHEMA = """
CREATE TABLE [dbo].[be_Posts] (PostID INT, BlogID INT);
CREATE TABLE [dbo].[be_Roles] (RoleID INT);
CREATE TABLE [dbo].[be_UserRoles] (UserRoleID INT);
CREATE TABLE [dbo].[be_Settings] (Name NVARCHAR(50));
CREATE TABLE [dbo].[old_Settings] (Name NVARCHAR(50));
CREATE TABLE [dbo].[be_Users] (UserID INT);
"""

PROVIDER = '''using System;
using System.Collections.Specialized;
namespace BlogEngine.Core.Providers { public class DbBlogProvider {
    private string tablePrefix;
    private string parmPrefix;
    public void Initialize(string name, NameValueCollection config) {
        if (config["tablePrefix"] == null) { config["tablePrefix"] = "be_"; }
        this.tablePrefix = config["tablePrefix"];
    }
    public void InsertPost(Post post) {
        var sqlQuery = string.Format("INSERT INTO {0}Posts (BlogID, PostID) VALUES ({1}BlogID, {1}PostID)",
            this.tablePrefix, this.parmPrefix);
        using (var cmd = conn.CreateTextCommand(sqlQuery)) { cmd.ExecuteNonQuery(); }
    }
    public string[] GetRoles() {
        var sqlQuery = string.Format("SELECT RoleID FROM {0}Roles r JOIN {0}Users u ON 1 = 1", tablePrefix);
        return Read(sqlQuery);
    }
    public void SaveSettings() {
        var sqlQuery = $"DELETE FROM {tablePrefix}Settings WHERE BlogId = {parmPrefix}blogid";
        Run(sqlQuery);
    }
    public void LoadTags() {
        var sqlQuery = string.Format("SELECT Tag FROM {0}Tags", tablePrefix);
        Run(sqlQuery);
    }
} }'''


def test_a_name_composed_with_a_configured_prefix_links_the_table_it_ends_as():
    graph = graph_of({"DbBlogProvider.cs": PROVIDER}, SCHEMA)
    insert = table_edges(graph, "InsertPost")
    assert list(insert) == [("WRITES", "sql:dbo.be_Posts|TABLE")]
    edge = insert[("WRITES", "sql:dbo.be_Posts|TABLE")]
    assert edge["via"] == "unknown_prefix" and edge["sql_via"] == "sql_literal" and edge["guess"] is True
    assert edge["written"] == "{?}Posts" and edge["candidates"] == ["sql:dbo.be_Posts|TABLE"]
    assert edge["operations"] == ["INSERT"]


def test_the_prefix_most_names_share_decides_between_tables_that_end_alike():
    """`{0}Roles` ends both be_Roles and be_UserRoles; `be_` explains Posts, Users, Settings too."""
    roles = table_edges(graph_of({"DbBlogProvider.cs": PROVIDER}, SCHEMA), "GetRoles")
    assert set(roles) == {("READS", "sql:dbo.be_Roles|TABLE"), ("READS", "sql:dbo.be_Users|TABLE")}
    assert roles[("READS", "sql:dbo.be_Roles|TABLE")]["candidates"] == [
        "sql:dbo.be_Roles|TABLE", "sql:dbo.be_UserRoles|TABLE"]


def test_a_name_two_tables_end_as_equally_is_a_guess_at_both_and_one_no_table_ends_as_has_no_edge():
    graph = graph_of({"DbBlogProvider.cs": PROVIDER}, SCHEMA.replace("be_Users", "old_Users"))
    # be_ (Posts, Roles, Settings) against old_ (Settings, Users): Settings goes to be_ alone
    assert set(table_edges(graph, "SaveSettings")) == {("WRITES", "sql:dbo.be_Settings|TABLE")}
    settings_only = PROVIDER.split("    public void InsertPost")[0] + "    public void SaveSettings()" \
        + PROVIDER.split("    public void SaveSettings()")[1]
    tied = table_edges(graph_of({"DbBlogProvider.cs": settings_only}, SCHEMA), "SaveSettings")
    assert set(tied) == {("WRITES", "sql:dbo.be_Settings|TABLE"), ("WRITES", "sql:dbo.old_Settings|TABLE")}
    assert all(edge["guess"] and edge["candidates"] == ["sql:dbo.be_Settings|TABLE", "sql:dbo.old_Settings|TABLE"]
               for edge in tied.values())
    assert table_edges(graph, "LoadTags") == {}
    assert not [n for n in graph if "__prefix__" in n or n.startswith(("sql:", "ext:")) and "Tags" in n]


def test_the_sql_a_method_shows_writes_the_unknown_prefix_as_users_read_it():
    graph = graph_of({"DbBlogProvider.cs": PROVIDER}, SCHEMA)
    shown = graph.nodes["cs:BlogEngine.Core.Providers.DbBlogProvider.InsertPost|METHOD"]["attrs"]["inline_sql"]
    assert shown == ["INSERT INTO {?}Posts (BlogID, PostID) VALUES ({?}BlogID, {?}PostID)"]
    assert not any("__prefix__" in sql for sql in shown)


ENTITY = '''namespace Blog.Domain { public class Post { public int PostID { get; set; } } }'''

CONTEXT = '''using Microsoft.EntityFrameworkCore;
using Blog.Domain;
namespace Blog.Data { public class BlogContext : DbContext {
    private readonly string _prefix;
    public DbSet<Post> Posts { get; set; }
    protected override void OnModelCreating(ModelBuilder modelBuilder) {
        modelBuilder.Entity<Post>().ToTable($"{_prefix}Posts");
    }
} }'''


def test_a_prefixed_mapping_of_an_entity_declared_elsewhere_starts_at_the_entity():
    """The entity's id is guessed from the context's namespaces: the prefixed MAPS_TO picks the
    guess that exists, as every other MAPS_TO does, not the first guess (no edge at all)."""
    graph = graph_of({"Post.cs": ENTITY, "BlogContext.cs": CONTEXT}, SCHEMA)
    mapped = {target: data for _, target, key, data in graph.out_edges("cs:Blog.Domain.Post|TYPE", keys=True, data=True)
              if key == "MAPS_TO"}
    assert mapped["sql:dbo.be_Posts|TABLE"]["via"] == "unknown_prefix"
    assert "sql:dbo.be_Settings|TABLE" not in mapped
    assert not any(node.startswith("cs:Blog.Data.Post") for node in graph)


COPIER = '''namespace BlogEngine.Core.Providers { public class DbBlogProvider {
    private string tablePrefix;
    private string parmPrefix;
    public void CopyBlog(Blog from, Blog to) {
        using (var cmd = conn.CreateTextCommand(string.Format(
            " INSERT INTO {0}Posts ( BlogID, PostID ) " +
            " SELECT {1}newblogid, PostID FROM {0}Posts WHERE BlogID = {1}existingblogid ", this.tablePrefix, this.parmPrefix)))
        {
            cmd.ExecuteNonQuery();
        }
        Log(string.Format("DELETE FROM {0}Users WHERE BlogID = {1}id", this.tablePrefix, this.parmPrefix));
    }
} }'''


def test_sql_handed_straight_to_a_command_helper_is_run_and_sql_handed_to_a_logger_is_not():
    """`conn.CreateTextCommand(string.Format("INSERT INTO {0}Posts ... SELECT ... FROM {0}Posts"))`:
    the repository's own helper makes the command, so the copy writes and reads be_Posts; the
    same text handed to `Log(...)` touches no table."""
    copy = table_edges(graph_of({"DbBlogProvider.cs": COPIER}, SCHEMA), "CopyBlog")
    assert set(copy) == {("WRITES", "sql:dbo.be_Posts|TABLE"), ("READS", "sql:dbo.be_Posts|TABLE")}
    # a guess the helper's name alone makes
    assert copy[("WRITES", "sql:dbo.be_Posts|TABLE")]["sql_via"] == "command_helper"
    assert copy[("WRITES", "sql:dbo.be_Posts|TABLE")]["guess"] is True


HELPERS = '''namespace Shop.Data { public class Repo {
    public void Purge() {
        _logger.LogSql("DELETE FROM be_Users WHERE Id = 1");
        Tracer.TraceQuery("UPDATE be_Roles SET RoleID = 1");
        db.ExecuteSQL("DELETE FROM be_Settings WHERE Name = 'x'");
    }
} }'''


def test_a_helper_named_for_sql_in_any_case_runs_it_and_one_named_for_showing_it_does_not():
    edges = table_edges(graph_of({"Repo.cs": HELPERS}, SCHEMA), "Purge")
    assert set(edges) == {("WRITES", "sql:dbo.be_Settings|TABLE")}  # `ExecuteSQL`, not `LogSql` / `TraceQuery`
    assert edges[("WRITES", "sql:dbo.be_Settings|TABLE")]["guess"] is True
