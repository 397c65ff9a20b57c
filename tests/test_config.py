"""Settings: defaults, user files, and errors that name the file and the key."""
from __future__ import annotations

from pathlib import Path

import pytest

from ragstream.config import load_settings
from ragstream.errors import ConfigError


def test_defaults_load():
    settings = load_settings()
    assert settings.embedding.dtype == "bfloat16" and settings.tokens.encoding == "cl100k_base"
    assert settings.index.languages[".cs"] == "csharp"


def test_user_file_deep_merges(tmp_path: Path):
    user = tmp_path / "mine.yaml"
    user.write_text("chunks:\n  max_chunk_tokens: 300\nindex:\n  languages:\n    .pyx: python\n")
    settings = load_settings(user)
    assert settings.chunks.max_chunk_tokens == 300 and settings.chunks.header_max_names == 8
    assert settings.index.languages[".pyx"] == "python" and settings.index.languages[".py"] == "python"


@pytest.mark.parametrize("text, where, message", [
    ("index:\n  max_file_size: 10\n", "mine.yaml: index", "unknown setting(s) ['max_file_size']"),
    ("chunks:\n  max_chunk_tokens: many\n", "mine.yaml: chunks.max_chunk_tokens", "expected int"),
    ("chunks:\n  max_chunk_tokens: 0\n", "mine.yaml: chunks.max_chunk_tokens", "must be >= 1"),
    ("embedding:\n  dtype: int4\n", "mine.yaml: embedding.dtype", "'int4' is not one of"),
    ("index:\n  sql_dialect: oracle\n", "mine.yaml: index.sql_dialect", "is not one of"),
    ("index: [1, 2\n", "mine.yaml:", "invalid YAML"),
    ("- just a list\n", "mine.yaml", "top level must be a mapping"),
])
def test_bad_settings_name_file_and_key(tmp_path: Path, text, where, message):
    user = tmp_path / "mine.yaml"
    user.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_settings(user)
    assert where in str(error.value) and message in str(error.value)


def test_missing_config_file(tmp_path: Path):
    with pytest.raises(ConfigError, match="configuration file not found"):
        load_settings(tmp_path / "nope.yaml")


@pytest.mark.parametrize("rule, where, message", [
    ({"paths": ["db/**"], "acl_tag": ["x"]}, "acl.rules[0]", "unknown key(s) ['acl_tag']"),
    ({"acl_tags": ["x"]}, "acl.rules[0].paths", "non-empty list of globs"),
    ({"paths": ["!"], "acl_tags": ["x"]}, "acl.rules[0].paths", "invalid path glob"),
    ({"paths": ["db/**"], "acl_tags": "dba"}, "acl.rules[0].acl_tags", "must be a list of strings"),
    ({"paths": "db/**", "acl_tags": ["x"]}, "acl.rules[0].paths", "non-empty list of globs, got 'db/**'"),
    ({"paths": ["[z-a]"], "acl_tags": ["x"]}, "acl.rules[0].paths", "invalid path glob '[z-a]'"),
    ({"paths": ["db/**"], "owner_group": 3}, "acl.rules[0].owner_group", "must be a string"),
])
def test_bad_acl_rules_name_the_rule(rule, where, message):
    """Refused when the settings load (the README: settings fail at load), not at index time."""
    with pytest.raises(ConfigError) as error:
        load_settings(overrides={"acl": {"rules": [rule]}})
    assert error.value.where.endswith(f": {where}") and message in str(error.value)


@pytest.mark.parametrize("argv", [
    ["--config", "{config}", "eval", "q.jsonl", "--repo", "."],
    ["eval", "q.jsonl", "--repo", ".", "--config", "{config}"],  # was read as --configs, silently
    ["index", ".", "--config", "{config}"],
    ["ask", "a question", "--config", "{config}"],
])
def test_the_cli_reads_config_before_or_after_the_command(tmp_path: Path, capsys, argv):
    from ragstream.cli import main

    missing = tmp_path / "missing.yaml"
    assert main([a.format(config=missing) for a in argv]) == 2
    assert "configuration file not found" in capsys.readouterr().err
