"""The shape a question is answered in (`questions.question_shape`), read by one grammar: an impact
question supposes a change to a schema or code object or asks its consequence; a mapping question asks
how an object's storage is defined; a list question opens with the code it lists; a flow asks for a
path from an entry point. Each form with the near miss that must keep its own shape."""
import pytest

from ragstream.graph.questions import asks_for_tables, question_shape


@pytest.mark.parametrize("question", [
    # a change supposed, in any tense or voice, to a named object
    "If the Notes table were restructured, which code would break?",
    "If owner_id on the accounts table became an integer column, which SQL would need to change?",
    "If customer emails no longer had to be unique in the Customers table, which checks would that affect?",
    "We want to drop the Thumbnails table where resized images are recorded. What reads or writes it?",
    "Suppose the Sku column is split into two columns: what has to change?",
    "Were the LegacyCode column removed, what would stop working?",
    # a change named by its gerund, or asked to be safe
    "Which code is affected by renaming the Slug column?",
    "What happens after removing the Discount column?",
    "Is it safe to drop the LegacyUsers table?",
    "If the Status property is removed from the Order class, what else has to change?",
    # the speaker's own change, of whatever it names
    "If I delete a warehouse, what else gets deleted along with it?",
    # a consequence asked
    "If the Addresses table changed, which code that reads addresses would be affected?",
    "Which code relies on the Tags table?",
    # the speaker's own change, and the code it affects asked
    "If we change how an invoice's line list is stored in the database, which code is affected?",
])
def test_an_impact_question_supposes_a_change_or_asks_its_consequence(question):
    assert question_shape(question) == "impact"


@pytest.mark.parametrize("question, shape", [
    # a change made as the application runs names no schema object: what runs
    ("If the order status is changed to shipped, what code runs?", "flow"),
    ("If I add an item to my basket, which tables are written?", "flow"),
    # a bug report's "if you replace step 6 ...": adding or replacing counts only with a schema object named
    ("If you replace step 6 with `pip install lib==2.9.0`, you get no failure.", None),
    # "depending on" is no dependency asked
    ("Depending on the provider, how is a blob stored in the database?", "mapping"),
    # a path asked is followed, whatever it says would be affected
    ("When an order is cancelled, what runs from the API down to the tables, and which rows would be affected?",
     "flow"),
    # the speaker's own action, asking for the code that does it (review12)
    ("We want to delete old orders every night. Which job does that?", "list"),
    ("I want to delete my account. Which code handles that?", "list"),
    ("We plan to remove inactive users every month; where is that done?", None),
])
def test_a_change_made_as_the_application_runs_or_a_path_is_no_impact(question, shape):
    assert question_shape(question) == shape


@pytest.mark.parametrize("question", [
    # rows turned into objects (and back), however put
    "How are rows of the Invoices table turned into what the invoices API returns?",
    "How does a row of the Members table become the profile the API returns?",
    "How is a customer row turned into the model the admin pages edit, and back into an entity?",
    "How are order lines turned into the DTOs that the orders endpoint returns?",
    "How are the columns of the Posts table read back into a Post object?",
    # the class a table stores, the table a class maps to: the answer leads with the mapping
    "Which class is stored in the AuditLog table, and where is that mapping registered?",
    "Which C# class are rows of the Revisions table mapped to, and which methods load them?",
    "Which table does the Invoice entity map to, and where are its column lengths configured?",
    "Which C# classes map those tables, and what turns the class names into table names?",
    "Which tables do the application's roles and claims live in?",
    "Which table holds a site's settings?",
    # how it is keyed, related, named, defined
    "How are the join tables OrderTags and OrderNotes keyed and related in the EF model?",
    "The users are stored in a table called Members. Where is that naming configured?",
    "Where are the columns and keys of the Payments table defined?",
    "How long can a nickname be, and where is that length set in the model and in the migrations?",
    "How is the relationship between orders and customers configured?",
    "Which column stores a user's time zone?",
    "How is a money amount represented in the database?",
    "What is the primary key of the OrderLines table?",
])
def test_a_mapping_question_asks_how_an_objects_storage_is_defined(question):
    assert question_shape(question) == "mapping"


@pytest.mark.parametrize("question, shape", [
    # a setting's length or key is no column's: no database named
    ("Where is the maximum password length set?", None),
    ("Where is the API key configured?", None),
    ("How are the grid's columns defined?", None),
    ("How is an error represented to the user?", None),
    # a stored procedure is nothing stored; a limit on what is kept is no storage
    ("Where does the data layer execute a stored procedure command?", None),
    ("Where is the limit on how many old revisions are kept enforced?", None),
    # storing, then what the code does with it: an explanation led by code
    ("Custom fields can be added. How are their values stored and how do they become searchable columns?", None),
    # a list opening with code asks for that code
    ("Which methods read the rows mapped to the Invoice class?", "list"),
    # a path asked is a flow
    ("How is an invoice saved, from the controller down to the tables, and where is it stored?", "flow"),
])
def test_a_mapping_near_miss_keeps_its_own_shape(question, shape):
    assert question_shape(question) == shape


@pytest.mark.parametrize("question", [
    # a list of code and its tables is a list, not an entry's path
    "Which repository methods does the nightly purge job call, and which tables do they clean up?",
    "Which stored procedures recalculate the totals, and which repository methods end up calling them?",
    "Which services change data with hand-written SQL, and which tables do they modify?",
    # the list opens a later sentence
    "The Links table holds two kinds of rows. Which stored procedures insert rows in it?",
    "Find the code that writes to the Orders table.",
    # no event opens it: a list of the code that does something, with its tables
    "Which pieces of code archive old invoices, and which tables do they affect?",
])
def test_a_question_opening_with_the_code_it_lists_is_a_list(question):
    assert question_shape(question) == "list"


@pytest.mark.parametrize("question, shape", [
    # "what does the code check" is a clause, not a list's head
    ("When a brand is deleted through the API, what does the code check first, and which tables does it read and "
     "change?", "flow"),
    ("Which repository methods run, from the controller down to the tables, when an invoice is paid?", "flow"),
    ("When someone enables comments, what runs and which tables get new rows?", "flow"),
    ("When the admin creates a blog, what code path saves it and into which table?", "flow"),
    ("How does saving a page reach the database?", "flow"),
    # an event opens it: what that event runs, whatever code it names
    ("When a customer files a complaint about an order, what code stores it and which tables are touched?", "flow"),
    ("After a courier scans a parcel at the depot, which service handles the scan and how is it written to the "
     "database?", "flow"),
    # the speaker's own action on a thing (no schema object) with a path asked: what it does
    ("If I delete a warehouse through the admin API, what does the server do, down to the tables?", "flow"),
    # "i.e." ends no sentence: this is a where question
    ("Where is the forum search implemented, i.e. which code queries the posts?", None),
])
def test_a_path_asked_is_a_flow_and_a_clause_opens_no_list(question, shape):
    assert question_shape(question) == shape


@pytest.mark.parametrize("question, tables", [
    ("Which other tables reference the Orders table?", True),
    ("What tables does the nightly purge read?", True),
    # the code it lists leads; "which tables" asks for that code's tables, listed with it
    ("Which scheduled jobs clear the cached catalogue, and which tables do they clear?", False),
    ("Which pieces of code remove invoices, and which tables do they affect?", False),
])
def test_a_list_asks_for_tables_only_when_it_does_not_open_with_code(question, tables):
    assert asks_for_tables(question) is tables


def test_pasted_text_is_no_part_of_what_is_asked():
    # a stack trace or script pasted into the question: one "sentence" of thousands of characters,
    # which the grammar's patterns would rescan from each of its words (minutes at 20k characters)
    trace = "System.InvalidOperationException: stored when the x is kept at Orders.Save() " * 250
    assert question_shape(f"{trace}. Which methods write the Orders table?") == "list"
    assert question_shape("How is the session stored? " + "stored data when idle; " * 900) == "mapping"
    assert question_shape("from to " * 2600) is None
