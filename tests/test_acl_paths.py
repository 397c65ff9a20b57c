"""`acl.rules[].paths` compared with paths as `retrieval_filters` globs are: both sides Unicode
NFKC without format characters, case-sensitive, and a rule that labels nothing while another
spelling of it would is refused, naming the setting (issue 37, filters item 3)."""
from __future__ import annotations

import pytest

from ragstream.errors import ConfigError
from ragstream.index.acl import acl_policy
from tests.conftest import make_settings

PATHS = ["db/schema.sql", "Secrets/keys.txt", "src/app.py"]


def policy(tmp_path, *globs: str):
    rules = [{"paths": [glob], "acl_tags": ["restricted"]} for glob in globs]
    return acl_policy(make_settings(tmp_path / "data", acl={"rules": rules}).acl)


@pytest.mark.parametrize("glob", ["ｄｂ/**", "d\u200bb/**", "\u200ddb/**", "db\u2060/**"],
                         ids=["fullwidth", "zero-width space", "zero-width joiner", "word joiner"])
def test_a_normalised_spelling_labels_the_path_it_reads_as(tmp_path, glob):
    acl = policy(tmp_path, glob)
    assert acl.for_path("db/schema.sql")["acl_tags"] == ["restricted"]
    assert acl.for_path("src/app.py")["acl_tags"] == ["public"]
    acl.check(PATHS)  # it labels a path: no error


def test_a_path_is_normalised_too(tmp_path):
    acl = policy(tmp_path, "db/**")
    assert acl.for_path("ｄｂ/schema.sql")["acl_tags"] == ["restricted"]
    assert acl.for_path("d\u200bb/schema.sql")["acl_tags"] == ["restricted"]


def test_matching_is_case_sensitive(tmp_path):
    acl = policy(tmp_path, "Secrets/**")
    assert acl.for_path("Secrets/keys.txt")["acl_tags"] == ["restricted"]
    assert acl.for_path("secrets/keys.txt")["acl_tags"] == ["public"]


def test_a_rule_that_labels_nothing_but_would_in_another_case_is_refused(tmp_path):
    acl = policy(tmp_path, "db/**", "secrets/**")
    with pytest.raises(ConfigError) as caught:
        acl.check(PATHS)
    assert caught.value.where == "acl.rules[1].paths"
    assert "Secrets/keys.txt" in str(caught.value) and "case" in str(caught.value)


def test_a_look_alike_spelling_that_labels_nothing_is_refused(tmp_path):
    acl = policy(tmp_path, "src/**", "d\u0431/**")  # a Cyrillic letter beside a Latin one
    with pytest.raises(ConfigError) as caught:
        acl.check(PATHS)
    assert caught.value.where == "acl.rules[1].paths"
    assert "CYRILLIC" in str(caught.value)


def test_a_rule_for_files_not_in_this_index_is_allowed(tmp_path):
    policy(tmp_path, "vendor/**").check(PATHS)  # no other spelling of it labels anything


def test_indexing_with_a_rule_in_the_wrong_case_fails_naming_the_rule_and_writes_nothing(tmp_path, capsys):
    from ragstream.cli import main
    from ragstream.config import PROJECT_ROOT
    config = tmp_path / "acl.yaml"
    data = tmp_path / "data"
    config.write_text(f"index:\n  data_dir: {data}\nacl:\n  rules:\n    - paths: ['Billing/**']\n      acl_tags: [dba]\n")
    code = main(["--config", str(config), "index", str(PROJECT_ROOT / "tests" / "fixtures" / "sample_repo")])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    assert "acl.rules[0].paths" in err and "case" in err
    assert not list(data.rglob("chunks.jsonl"))  # no index was published
