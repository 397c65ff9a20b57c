"""The impact of a text column's length (`graph/lengths.py`): the asked property, the mapping code
configuring it, the validators limiting the same property of requests about its entity, and its
table; not a validator of another entity's request, nor one with no length rule."""
from __future__ import annotations

from ragstream.graph.answers import answer_from_graph
from ragstream.graph.named import find_named
from ragstream.graph.questions import asks_about_length, question_shape
from tests.test_graph_answers_dotnet import graph_and_texts

SOURCES = {
    "src/Domain/Entities.cs": """
namespace Todo.Domain;
public class TodoItem { public int Id { get; set; } public string Title { get; set; } public string Note { get; set; } }
public class Tag { public int Id { get; set; } public string Title { get; set; } }
""",
    "src/Infrastructure/AppDbContext.cs": """
using Microsoft.EntityFrameworkCore;
using Todo.Domain;
namespace Todo.Infrastructure;
public class AppDbContext : DbContext
{
    public DbSet<TodoItem> TodoItems => Set<TodoItem>();
    public DbSet<Tag> Tags => Set<Tag>();
}
public class TodoItemConfiguration : IEntityTypeConfiguration<TodoItem>
{
    public void Configure(EntityTypeBuilder<TodoItem> builder) { builder.Property(t => t.Title).HasMaxLength(200).IsRequired(); }
}
""",
    "src/Application/Validators.cs": """
using FluentValidation;
namespace Todo.Application;
public record CreateTodoItemCommand(string Title);
public record RenameTodoItemCommand(string Title);
public record CreateTagCommand(string Title);
public class CreateTodoItemCommandValidator : AbstractValidator<CreateTodoItemCommand>
{
    public CreateTodoItemCommandValidator() { RuleFor(v => v.Title).MaximumLength(200).NotEmpty(); }
}
public class RenameTodoItemCommandValidator : AbstractValidator<RenameTodoItemCommand>
{
    public RenameTodoItemCommandValidator() { RuleFor(v => v.Title).NotEmpty(); }
}
public class CreateTagCommandValidator : AbstractValidator<CreateTagCommand>
{
    public CreateTagCommandValidator() { RuleFor(v => v.Title).MaximumLength(50); }
}
""",
}


def _answer(question: str):
    built, text_of = graph_and_texts(SOURCES)
    return answer_from_graph(built, question, find_named(built, question), [], text_of)


def test_length_questions_are_read_as_such():
    for question in ("If I change the maximum length of a todo item's title, what else has to change?",
                     "We want to shorten titles from 200 to 100 characters. Which code has to change along with the database column?"):
        assert question_shape(question) == "impact" and asks_about_length(question)
    assert not asks_about_length("What breaks if I rename the Title column of the TodoItems table?")


def test_the_length_of_a_property_is_written_in_its_mapping_its_validators_and_its_table():
    found = _answer("If I change the maximum length of a todo item's title, what else has to change?")
    assert found is not None and found.shape == "impact"
    assert [s.id for s in found.subjects] == ["cs:Todo.Domain.TodoItem.Title|PROPERTY"]
    items = {item.id: item for item in found.items}
    assert set(items) == {"sql:dbo.TodoItems|TABLE", "cs:Todo.Infrastructure.TodoItemConfiguration.Configure|METHOD",
                          "cs:Todo.Application.CreateTodoItemCommandValidator|TYPE"}
    assert items["cs:Todo.Application.CreateTodoItemCommandValidator|TYPE"].guess  # matched by name
    # the tag's validator limits another entity's title; the rename validator sets no length


def test_with_no_entity_named_every_configured_property_of_that_name_is_asked():
    found = _answer("We want to shorten titles from 200 to 100 characters. Which code has to change along with the database column?")
    assert found is not None
    # the tag's title is configured by no mapping code (no length set there): not asked
    assert [s.id for s in found.subjects] == ["cs:Todo.Domain.TodoItem.Title|PROPERTY"]
    assert "cs:Todo.Application.CreateTagCommandValidator|TYPE" not in {item.id for item in found.items}


def test_a_validator_limits_the_length_it_limits_in_the_rule_of_that_property():
    """`RuleFor(v => v.Title).NotEmpty(); RuleFor(v => v.Note).MaximumLength(500);` limits the
    note's length, not the title's."""
    import networkx as nx

    from ragstream.graph.lengths import _validators

    g = nx.MultiDiGraph()
    g.add_node("TodoItem", kind="TYPE", name="App.TodoItem")
    g.add_node("V", kind="TYPE", name="App.CreateTodoItemCommandValidator",
               signature="public class CreateTodoItemCommandValidator : AbstractValidator<CreateTodoItemCommand>")
    g.add_node("V.V", kind="METHOD", name="App.CreateTodoItemCommandValidator.CreateTodoItemCommandValidator", parent="V")
    g.add_edge("V", "V.V", key="DEFINES")
    text = {"V.V": "RuleFor(v => v.Title)\n    .NotEmpty();\nRuleFor(v => v.Note)\n    .MaximumLength(500);"}

    def texts(ids):
        return {i: text[i] for i in ids if i in text}

    assert _validators(g, "TodoItem", "Title", "TodoItem.Title", texts) == []
    assert [r.id for r in _validators(g, "TodoItem", "Note", "TodoItem.Note", texts)] == ["V"]
