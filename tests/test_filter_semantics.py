"""Filter semantics that fail closed (issue 19, part 4): path globs are normalised or refused, an
exclude list cannot re-include, every empty allowlist allows nothing, a repeated key narrows."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragstream.cli import main
from ragstream.errors import FilterError, RagstreamError, RetrievalError
from ragstream.retrieval.filters import RetrievalFilters, narrowed_mapping
from ragstream.retrieval.types import SearchRequest
from ragstream.retrieval.visibility import Visibility
from ragstream.index.model import Chunk

PATHS = ["hidden/a.cs", "hidden/deep/b.cs", "billing/c.py", "x/hidden/d.cs", "e.sql"]


def _visible(filters: dict) -> set[str]:
    """Paths the vectorised mask lets through; the one-item predicate must agree with it."""
    parsed = RetrievalFilters.parse(filters)
    chunks = [Chunk(f"n{i}", p, 1, 1, "METHOD", f"s{i}", "x", {"language": "csharp", "acl_tags": ["public"],
                                                                 "classification_labels": ["internal"]})
              for i, p in enumerate(PATHS)]
    mask = Visibility(chunks).mask(parsed)
    by_item = {p for p in PATHS if parsed.allows(["public"], ["internal"], p, "METHOD", "csharp")}
    assert {p for p, shown in zip(PATHS, mask) if shown} == by_item
    return by_item


# --- paths_exclude: what used to fail open --------------------------------------------------

@pytest.mark.parametrize("glob", ["./hidden/**", "hidden//**", "billing/../hidden/**", "/hidden/**",
                                  " hidden/** ", "./billing/./../hidden/"])
def test_an_exclude_glob_written_another_way_still_excludes(glob):
    assert _visible({"paths_exclude": [glob]}) == {"billing/c.py", "x/hidden/d.cs", "e.sql"}


@pytest.mark.parametrize("glob, normal", [("./hidden/**", "hidden/**"), ("hidden//**", "hidden/**"),
                                          ("billing/../hidden/**", "hidden/**"), ("./hidden", "/hidden"),
                                          ("billing/../hidden", "/hidden"), ("hidden/", "hidden/"),
                                          ("**/hidden/", "**/hidden/"), ("/e.sql", "/e.sql")])
def test_globs_are_stored_normalised(glob, normal):
    assert RetrievalFilters.parse({"paths_exclude": [glob]}).paths_exclude == (normal,)
    assert RetrievalFilters.parse({"paths_include": ["!" + glob]}).paths_include == ("!" + normal,)


def test_an_anchored_glob_stays_anchored_after_normalising():
    """`./hidden` names the root's folder only: normalised to a bare `hidden` it would match
    x/hidden too (wider for an exclude, and wider for an include, which would leak)."""
    assert _visible({"paths_include": ["./hidden"]}) == {"hidden/a.cs", "hidden/deep/b.cs"}


@pytest.mark.parametrize("globs, message", [
    (["!hidden/**"], "re-include"),
    (["hidden/**", "!hidden/a.cs"], "re-include"),
    (["../hidden/**"], "above the repository root"),
    (["billing/../../hidden/**"], "above the repository root"),
    (["**/../hidden"], "wildcard"),
    (["billing/.."], "the repository root itself"),
    ([""], "empty glob"),
    (["#hidden"], "comment"),
    (["hidden\\a.cs"], "use / between folders"),
])
def test_an_exclude_glob_that_cannot_be_normalised_is_refused(globs, message):
    with pytest.raises(FilterError, match=message) as raised:
        RetrievalFilters.parse({"paths_exclude": globs})
    assert raised.value.where == "retrieval_filters.paths_exclude"
    bad = next(g for g in globs if g not in ("hidden/**",))
    assert repr(bad) in raised.value.message  # the error names the value
    assert isinstance(raised.value, RetrievalError) and isinstance(raised.value, RagstreamError)


@pytest.mark.parametrize("globs", [["**", "!hidden/"], ["!hidden/", "**"], ["*", "!hidden/"], ["**", "!hidden"]])
def test_a_negation_in_an_include_list_always_narrows(globs):
    """In gitignore order `["**", "!hidden/"]` keeps hidden/a.cs (a folder matched by `**` cannot
    have its files taken back); here a `!` narrows wherever it stands."""
    assert _visible({"paths_include": globs}) == {"billing/c.py", "e.sql"}


# --- spellings that name another path (issue 37) ---------------------------------------------

ZERO_WIDTH = "\u200b"
FULLWIDTH_HIDDEN = "\uff48\uff49\uff44\uff44\uff45\uff4e"


@pytest.mark.parametrize("glob", ["HIDDEN/**", "Hidden/", f"{FULLWIDTH_HIDDEN}/**", f"hid{ZERO_WIDTH}den/**",
                                  "\u2060hidden/**", "hidden\u00ad/**", "\ufeffhidden/**"])
def test_a_spelling_of_an_exclusion_still_excludes(glob):
    """Case, fullwidth letters and format characters (zero-width space, word joiner, soft hyphen,
    BOM) name the same path once read as the README says; each used to exclude nothing."""
    assert _visible({"paths_exclude": [glob]}) == {"billing/c.py", "e.sql"} | (
        set() if glob == "Hidden/" else {"x/hidden/d.cs"})


@pytest.mark.parametrize("glob", [f"{FULLWIDTH_HIDDEN}/**", f"hid{ZERO_WIDTH}den/**"])
def test_globs_are_stored_in_nfkc_without_format_characters(glob):
    assert RetrievalFilters.parse({"paths_exclude": [glob]}).paths_exclude == ("hidden/**",)


def test_paths_are_read_in_the_same_form_as_globs():
    """A path holding a fullwidth letter or a zero-width space is matched by the plain spelling."""
    filters = RetrievalFilters.parse({"paths_exclude": ["hidden/**"]})
    for path in (f"{FULLWIDTH_HIDDEN}/a.cs", f"hid{ZERO_WIDTH}den/a.cs", "HIDDEN/a.cs"):
        assert not filters.allows([], [], path, "METHOD", "csharp"), path


def test_the_case_rule_hides_more_never_less():
    """Globs that take away match in any case; globs that allow match the case written."""
    assert _visible({"paths_include": ["HIDDEN/**"]}) == set()
    assert _visible({"paths_include": ["hidden/**"]}) == {"hidden/a.cs", "hidden/deep/b.cs"}
    assert _visible({"paths_include": ["**", "!HIDDEN/"]}) == {"billing/c.py", "e.sql"}


@pytest.mark.parametrize("key, globs", [("paths_exclude", ["h\u0456dden/**"]),
                                        ("paths_include", ["**", "!h\u0456dden/"]),
                                        ("paths_exclude", ["\u0440\u0430yments/**"])])
def test_a_lookalike_letter_that_matches_nothing_is_refused(key, globs):
    """A Cyrillic `і` (or `р`, `а`) in a Latin name is another name: refused, naming the letter."""
    with pytest.raises(FilterError, match="mixes scripts in one name: U\\+0") as raised:
        _visible({key: globs})
    assert raised.value.where == f"retrieval_filters.{key}"


def test_an_exclusion_that_matches_nothing_is_a_warning_in_the_search_response(acl_backend):
    filters = {"paths_exclude": ["nowhere/**", "db/**"]}
    response = acl_backend.search(SearchRequest("bm25", "invoice", 5, "sample_repo", "default", filters))
    assert response.debug["warnings"] == ["retrieval_filters.paths_exclude: 'nowhere/**' matches no indexed path: "
                                          "it takes nothing away"]


def test_a_single_script_name_that_matches_nothing_is_only_a_warning():
    chunks = [Chunk("n", "docs/a.md", 1, 1, "FILE", "a", "x", {"language": "text"})]
    filters = RetrievalFilters.parse({"paths_exclude": ["\u043f\u0440\u0438\u043c\u0435\u0440/**"]})  # Cyrillic only
    assert Visibility(chunks).filter_warnings(filters) == (
        "retrieval_filters.paths_exclude: '\u043f\u0440\u0438\u043c\u0435\u0440/**' matches no indexed path: "
        "it takes nothing away",)


def test_filters_built_directly_are_normalised_and_checked_too():
    assert RetrievalFilters(paths_exclude=("./hidden/**",)).paths_exclude == ("hidden/**",)
    with pytest.raises(FilterError, match="re-include"):
        RetrievalFilters(paths_exclude=("!hidden/**",))


# --- empty allowlists -----------------------------------------------------------------------

@pytest.mark.parametrize("key", ["acl_tags_any", "classification_labels_all", "paths_include", "kinds",
                                 "languages"])
def test_every_empty_allowlist_allows_nothing(key):
    assert _visible({key: []}) == set()


def test_an_empty_exclude_list_excludes_nothing():
    assert _visible({"paths_exclude": []}) == set(PATHS)


def test_a_key_given_without_a_value_is_an_error_not_an_absent_key():
    with pytest.raises(FilterError, match="leave the key out") as raised:
        RetrievalFilters.parse({"classification_labels_all": None})
    assert raised.value.where == "retrieval_filters.classification_labels_all"


def test_an_empty_label_requirement_hides_every_row_of_a_real_index(acl_backend):
    request = SearchRequest("bm25", "invoice", 50, "sample_repo", "default", {"classification_labels_all": []})
    response = acl_backend.search(request)
    assert response.hits == [] and response.debug["visible_rows"] == 0
    assert acl_backend.fetch_texts(["sql:dbo.Invoices|TABLE"], "sample_repo", "default",
                                   {"classification_labels_all": []}) == {}


# --- a repeated key narrows -----------------------------------------------------------------

@pytest.mark.parametrize("items, merged", [
    ([("kinds", ["METHOD", "FUNCTION"]), ("kinds", ["FUNCTION", "TABLE"])], {"kinds": ["FUNCTION"]}),
    ([("acl_tags_any", ["public", "dba"]), ("acl_tags_any", ["public"])], {"acl_tags_any": ["public"]}),
    ([("acl_tags_any", ["dba"]), ("acl_tags_any", ["public"])], {"acl_tags_any": []}),
    ([("classification_labels_all", ["internal"]), ("classification_labels_all", ["confidential"])],
     {"classification_labels_all": ["internal", "confidential"]}),
    ([("paths_exclude", ["a/"]), ("paths_exclude", ["b/"])], {"paths_exclude": ["a/", "b/"]}),
    ([("languages", ["sql"]), ("kinds", ["TABLE"])], {"languages": ["sql"], "kinds": ["TABLE"]}),
])
def test_a_repeated_key_narrows(items, merged):
    assert narrowed_mapping(items) == merged


@pytest.mark.parametrize("items", [
    [("classification_labels_all", []), ("classification_labels_all", ["internal"])],
    [("classification_labels_all", ["internal"]), ("classification_labels_all", [])],
])
def test_a_repeat_cannot_turn_an_empty_label_requirement_into_one_that_allows(items):
    """Found by the leak property test: merged as a union, `[]` then `[internal]` became
    `[internal]`, and everything labelled internal showed although the first said nothing."""
    assert narrowed_mapping(items) == {"classification_labels_all": []}
    assert _visible(narrowed_mapping(items)) == set()


def test_a_repeated_include_list_is_refused_rather_than_widened():
    with pytest.raises(FilterError, match="paths_include.*given twice") as raised:
        narrowed_mapping([("paths_include", ["src/"]), ("paths_include", ["db/"])])
    assert "'db/'" in raised.value.message


def test_repeating_a_filter_on_the_command_line_narrows(acl_backend, capsys):
    data = acl_backend.settings.index.data_dir
    config = Path(data).parent / "narrow.yaml"
    config.write_text(f"index:\n  data_dir: {data}\n")
    args = ["--config", str(config), "search", "invoices table", "--mode", "bm25", "--top-k", "50"]
    assert main(args + ["--filter", "acl_tags_any=public,dba"]) == 0
    assert "sql:dbo.Invoices|TABLE" in capsys.readouterr().out  # dba sees the tables
    assert main(args + ["--filter", "acl_tags_any=public,dba", "--filter", "acl_tags_any=public"]) == 0
    out = capsys.readouterr().out
    assert "sql:" not in out and "visible_rows" in out  # the second --filter narrowed to public
    assert main(args + ["--filter", "paths_exclude=!db/**"]) == 2
    err = capsys.readouterr().err
    assert "retrieval_filters.paths_exclude" in err and "'!db/**'" in err


def test_the_mask_and_the_predicate_agree_on_empty_label_lists():
    chunks = [Chunk("a", "a.py", 1, 1, "FUNCTION", "a", "x", {"language": "python", "classification_labels": []})]
    filters = RetrievalFilters.parse({"classification_labels_all": []})
    assert not np.any(Visibility(chunks).mask(filters))
    assert not filters.allows([], [], "a.py", "FUNCTION", "python")
