"""What a re-index reuses from the build before (issue 40) is what it would have made anew:
redacted texts and line costs from the repository's cache, and the Python call solve when only
lines moved."""
from __future__ import annotations

from pathlib import Path

from ragstream.index.blob_cache import BlobCache
from ragstream.index.chunk_counts import RememberedCounts
from ragstream.index.python.calls.link import LineFreeFacts, resolve_calls
from ragstream.index.python.parser import parse_python
from ragstream.index.source_texts import remember_texts, walk_with_texts
from ragstream.index.walk import walk_repository
from ragstream.token_count import TokenCounter
from tests.conftest import make_settings

SECRET = "AKIAZ3Q7PLMNX4RT2WKB"


def test_texts_from_the_cache_are_the_walks_texts(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data").index
    (sample_repo / "keys.py").write_text(f'AWS_KEY = "{SECRET}"\n', encoding="utf-8")
    cache = BlobCache(tmp_path / "cache.sqlite", "parsed", "record")
    try:
        remember_texts(walk_repository(sample_repo, settings), cache, "v:")
        util = sample_repo / "billing" / "util.py"
        util.write_text(util.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        reused = walk_with_texts(sample_repo, settings, cache, "v:")
        assert reused == walk_repository(sample_repo, settings)
        assert SECRET not in next(f.text for f in reused.files if f.path == "keys.py")
    finally:
        cache.close()


def test_texts_kept_by_the_process_are_the_walks_texts(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data").index
    (sample_repo / "keys.py").write_text(f'AWS_KEY = "{SECRET}"\n', encoding="utf-8")
    cache = BlobCache(tmp_path / "cache.sqlite", "parsed", "record")
    try:
        kept: dict = {}
        walk_with_texts(sample_repo, settings, cache, "v:", kept=kept)
        (sample_repo / "keys.py").rename(sample_repo / "moved_keys.py")  # the same text under another path
        util = sample_repo / "billing" / "util.py"
        util.write_text(util.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        reused = walk_with_texts(sample_repo, settings, cache, "v:", kept=kept)
        assert reused == walk_repository(sample_repo, settings)
        assert len(kept) == len(reused.files) and SECRET not in str(kept)
    finally:
        cache.close()


def test_a_file_changed_after_the_hashing_walk_is_read_as_it_is_now(sample_repo: Path, tmp_path: Path):
    settings = make_settings(tmp_path / "data").index
    cache = BlobCache(tmp_path / "cache.sqlite", "parsed", "record")
    try:
        hashed = walk_repository(sample_repo, settings, with_text=False)
        util = sample_repo / "billing" / "util.py"
        util.write_text(util.read_text(encoding="utf-8") + "\nLATE = 1\n", encoding="utf-8")
        walked = walk_with_texts(sample_repo, settings, cache, "v:", hashed)
        assert walked == walk_repository(sample_repo, settings)
        assert "LATE = 1" in next(f.text for f in walked.files if f.path == "billing/util.py")
    finally:
        cache.close()


class DictMemo:
    def __init__(self) -> None:
        self.kept: dict[str, bytes] = {}
        self.hits = 0

    def get(self, key: str) -> bytes | None:
        self.hits += key in self.kept
        return self.kept.get(key)

    def put(self, key: str, value: bytes) -> None:
        self.kept[key] = value


APP = '''
def helper(x):
    return str(x)


class Service:
    def run(self, value):
        return helper(value)


def main():
    Service().run(1)
'''


def test_a_solve_is_reused_when_only_lines_move_and_gives_the_new_lines():
    memo = DictMemo()
    _, before = resolve_calls([parse_python("app.py", APP, "app")], memo=memo)
    shifted = "# a comment\n\n" + APP.replace("return helper(value)", "# why\n        return helper(value)")
    _, reused = resolve_calls([parse_python("app.py", shifted, "app")], memo=memo)
    _, fresh = resolve_calls([parse_python("app.py", shifted, "app")])
    assert memo.hits == 1 and reused == fresh
    lines = {(c.caller, c.callee): c.line for c in reused}
    assert lines[("app.Service.run", "app.helper")] == {(c.caller, c.callee): c.line for c in before}[
        ("app.Service.run", "app.helper")] + 3


def test_a_new_call_is_solved_again():
    memo = DictMemo()
    resolve_calls([parse_python("app.py", APP, "app")], memo=memo)
    changed = APP + "\n\ndef extra():\n    helper(2)\n"
    _, calls = resolve_calls([parse_python("app.py", changed, "app")], memo=memo)
    assert memo.hits == 0 and ("app.extra", "app.helper") in {(c.caller, c.callee) for c in calls}


def test_kept_line_free_facts_are_made_again_for_the_changed_file_only():
    """A warm build's solve inputs (`LineFreeFacts`): an unchanged file's facts are the ones kept
    (the same objects), the edited file's are made anew, the calls are a solve's from scratch,
    and a memo finds the solve of the same facts under the same key."""
    other = parse_python("lib.py", "def helper(value):\n    return value\n", "lib")
    app = parse_python("app.py", APP, "app")
    facts, memo = LineFreeFacts(), DictMemo()
    _, before = resolve_calls([other, app], memo=memo, facts=facts)
    kept = {id(flow): made for flow, made in facts.kept.values()}
    edited = parse_python("app.py", APP.replace("return helper(value)", "return helper(value) + str(value)"), "app")
    _, after = resolve_calls([other, edited], memo=memo, facts=facts)
    assert after == resolve_calls([other, edited])[1] and after != before
    assert set(facts.kept) == {id(other.flow), id(edited.flow)}  # only what the last use used
    assert facts.kept[id(other.flow)][1] is kept[id(other.flow)]  # kept, not made again
    # made anew from the edit: not the facts kept of the file before it
    assert facts.kept[id(edited.flow)][1].digest != kept[id(app.flow)].digest
    _, again = resolve_calls([other, edited], memo=memo, facts=LineFreeFacts())  # a new process: same key
    assert memo.hits == 1 and again == after


class CountingCounter(TokenCounter):
    """The real counter, noting how often it computed line costs and encoded a text."""

    computed = 0
    encoded = 0

    def line_costs(self, lines: list[str], tokens: list[int] | None = None) -> list[int]:
        self.computed += 1
        return super().line_costs(lines, tokens)

    def encode(self, text: str) -> list[int]:
        self.encoded += 1
        return super().encode(text)


def test_remembered_line_costs_are_the_counters(tmp_path: Path):
    counter = CountingCounter()
    lines = ["def long_function(alpha, beta):", "    return alpha ** beta  # ünïcode", ""] * 40
    cache = BlobCache(tmp_path / "cache.sqlite", "parsed", "record")
    try:
        first = RememberedCounts(counter, {}, cache, "v:")
        costs = first.line_costs(lines)
        first.save()
        again = RememberedCounts(counter, {"known text": 7}, cache, "v:")
        assert again.line_costs(lines) == costs == TokenCounter().line_costs(lines)
        assert counter.computed == 1 and again.count("known text") == 7
    finally:
        cache.close()


def test_a_body_over_the_limit_is_split_by_the_tokens_its_count_made(tmp_path: Path):
    counter = CountingCounter()
    long_body = ["def long_function(alpha, beta):", "    return alpha ** beta  # ünïcode", ""] * 40
    short_body = ["x = 1"]
    cache = BlobCache(tmp_path / "cache.sqlite", "parsed", "record")
    try:
        counts = RememberedCounts(counter, {}, cache, "v:", split_over=100)
        assert counts.count("\n".join(long_body)) > 100 and counts.count("\n".join(short_body)) <= 100
        assert counter.encoded == 2
        assert counts.line_costs(long_body) == TokenCounter().line_costs(long_body)
        assert counter.encoded == 2  # split by the tokens its count made, not encoded again
        assert counts.line_costs(short_body) == [counts.count("x = 1")]
        assert counter.encoded == 4  # a body under the limit kept no tokens: encoded for its costs
    finally:
        cache.close()
