"""Pipeline files: extends, merge rules and validation, each error naming file and step."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragstream.config import deep_merge
from ragstream.errors import PipelineError
from ragstream.pipeline.loader import load_pipeline

RETRIEVE = {"id": "retrieve", "action": "retrieve", "top_k": 5, "on_ok": "expand"}
EXPAND = {"id": "expand", "action": "expand", "max_depth_from_settings": "d",
          "max_nodes_from_settings": "n", "edge_allowlist_from_settings": "e", "next": "fetch"}
FETCH = {"id": "fetch", "action": "fetch_node_texts"}


def write(folder: Path, name: str, **data) -> None:
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(data))


def base(folder: Path, **overrides) -> None:
    write(folder, "base", settings={"entry_step_id": "retrieve", "budget": {"context": 100, "history": 50},
                                    "d": 1, "n": 10, "e": ["CALLS"]},
          steps=[RETRIEVE, EXPAND, FETCH], **overrides)


def test_shipped_pipelines_load_and_differ():
    code, db = load_pipeline("code"), load_pipeline("db")
    assert code.files[0].endswith("pipelines/base.yaml") and db.files[-1].endswith("pipelines/db.yaml")
    assert code.settings["edge_allowlist"]["FOREIGN_KEY"] == "out" and db.settings["edge_allowlist"]["FOREIGN_KEY"] == "both"
    assert code.settings["max_context_tokens"] != db.settings["max_context_tokens"]
    assert db.steps["retrieve"].params == {"mode": "bm25"} and not code.warnings and not db.warnings


def test_settings_deep_merge_child_wins_and_steps_merge_by_id(tmp_path: Path):
    base(tmp_path)
    write(tmp_path, "child", extends="base", settings={"budget": {"context": 300}, "extra": True},
          steps=[{"id": "fetch", "action": "fetch_node_texts", "budget_tokens": 40},
                 {"id": "late", "action": "fetch_node_texts"}])
    write(tmp_path, "grandchild", extends="child", settings={"budget": {"history": 7}})
    pipeline = load_pipeline("grandchild", tmp_path)
    assert [Path(f).stem for f in pipeline.files] == ["base", "child", "grandchild"]
    assert pipeline.settings["budget"] == {"context": 300, "history": 7} and pipeline.settings["extra"] is True
    assert pipeline.steps["fetch"].params == {"budget_tokens": 40}  # replaced whole
    assert pipeline.steps["fetch"].source.endswith("child.yaml")
    assert pipeline.steps["retrieve"].params == {"top_k": 5}  # inherited
    assert pipeline.warnings == (f"{tmp_path / 'child.yaml'}: step late is unreachable from retrieve",
                                 *(f"{tmp_path / source}: settings.{key} is read by no stage and named by no step; "
                                   "is it a typo?" for key, source in (("budget", "grandchild.yaml"),
                                                                       ("extra", "child.yaml"))))
    assert pipeline.transition(pipeline.steps["retrieve"], "ok") == "expand"
    assert pipeline.transition(pipeline.steps["retrieve"], "no_entry_points") is None


def test_step_order_means_nothing(tmp_path: Path):
    limits = {"entry_step_id": "retrieve", "d": 1, "n": 10, "e": ["CALLS"]}
    write(tmp_path, "a", settings=limits, steps=[RETRIEVE, EXPAND, FETCH])
    write(tmp_path, "b", settings=limits, steps=[FETCH, EXPAND, RETRIEVE])
    def shape(name):
        return {i: (s.action, s.params, s.next, s.branches) for i, s in load_pipeline(name, tmp_path).steps.items()}
    assert shape("a") == shape("b")


@pytest.mark.parametrize("child, where, message", [
    ({"steps": [{"id": "x", "action": "teleport"}]}, "child.yaml: step x", "unknown action 'teleport'"),
    ({"steps": [{**FETCH, "budget": 3}]}, "child.yaml: step fetch", "unknown parameter 'budget'"),
    ({"steps": [{**FETCH, "budget_tokens": "many"}]}, "child.yaml: step fetch", "must be int, got 'many'"),
    ({"steps": [{**FETCH, "budget_tokens": True}]}, "child.yaml: step fetch", "must be int, got True"),
    ({"steps": [{**RETRIEVE, "on_done": "fetch"}]}, "child.yaml: step retrieve", "retrieve has no outcome 'done'"),
    ({"steps": [{**EXPAND, "next": "nowhere"}]}, "child.yaml: step expand", "transition to unknown step 'nowhere'"),
    ({"steps": [{**FETCH, "next": "retrieve", "on_ok": "retrieve"}]}, "child.yaml: step fetch", "not both"),
    ({"steps": [{"id": "fetch"}]}, "child.yaml: step fetch", "needs a string `action`"),
    ({"steps": [FETCH, FETCH]}, "child.yaml: step fetch", "step id used twice"),
    ({"steps": [{"action": "retrieve"}]}, "child.yaml: steps[0]", "with a string `id`"),
    ({"settings": {"entry_step_id": "start"}}, "child.yaml", "entry_step_id 'start' names no step"),
    ({"stages": []}, "child.yaml", "unknown top-level key(s) ['stages']"),
    ({"extends": "ghost"}, "child.yaml: extends", "no pipeline file ghost.yaml"),
    ({"steps": [{**EXPAND, "max_depth_from_settings": "max_dept"}]}, "child.yaml: step expand",
     "max_depth_from_settings names 'max_dept'"),
])
def test_validation_errors_name_file_and_step(tmp_path: Path, child, where, message):
    base(tmp_path)
    write(tmp_path, "child", **{"extends": "base", **child})
    with pytest.raises(PipelineError) as error:
        load_pipeline("child", tmp_path)
    assert where in str(error.value.where) and message in str(error.value)


def test_inheritance_cycles_are_errors(tmp_path: Path):
    write(tmp_path, "a", extends="b")
    write(tmp_path, "b", extends="c")
    write(tmp_path, "c", extends="a")
    with pytest.raises(PipelineError, match="inheritance cycle: a.yaml -> b.yaml -> c.yaml -> a.yaml"):
        load_pipeline("a", tmp_path)
    write(tmp_path, "self", extends="self")
    with pytest.raises(PipelineError, match="inheritance cycle"):
        load_pipeline("self", tmp_path)


def test_extends_with_a_file_name_looks_beside_the_child(tmp_path: Path, monkeypatch):
    base(tmp_path)
    write(tmp_path, "child", extends="base.yaml")
    monkeypatch.chdir("/")
    assert Path(load_pipeline("child", tmp_path).files[0]) == tmp_path / "base.yaml"


def test_yaml_errors_give_the_line(tmp_path: Path):
    (tmp_path / "bad.yaml").write_text("settings:\n  entry_step_id: a\nsteps: [\n  {id: a\n")
    with pytest.raises(PipelineError) as error:
        load_pipeline("bad", tmp_path)
    assert "invalid YAML" in str(error.value) and str(tmp_path / "bad.yaml") + ":" in error.value.where


# --- hypothesis: any chain merges like a fold of its files ---------------------------------

keys = st.sampled_from(["a", "b", "c", "d"])
values = st.recursive(st.integers(0, 9) | st.booleans(), lambda inner: st.dictionaries(keys, inner, max_size=3),
                      max_leaves=6)
step_strategy = st.builds(lambda sid, kind, n: ({"id": sid, "action": "fetch_node_texts", "budget_tokens": n}
                                                if kind else {"id": sid, "action": "retrieve", "top_k": n}),
                          st.sampled_from(["s1", "s2", "s3", "s4"]), st.booleans(), st.integers(1, 50))
file_strategy = st.tuples(st.dictionaries(keys, values, max_size=3),
                          st.lists(step_strategy, max_size=4, unique_by=lambda s: s["id"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(file_strategy, min_size=1, max_size=5))
def test_any_inheritance_chain_is_a_fold_of_its_files(tmp_path_factory, files):
    folder = tmp_path_factory.mktemp("chain")
    root_settings, root_steps = files[0]
    files = [({**root_settings, "entry_step_id": "entry"}, [FETCH | {"id": "entry"}, *root_steps])] + files[1:]
    expected_settings, expected_steps = {}, {}
    for depth, (file_settings, steps) in enumerate(files):
        extends = {"extends": f"f{depth - 1}"} if depth else {}
        write(folder, f"f{depth}", settings=file_settings, steps=steps, **extends)
        expected_settings = deep_merge(expected_settings, file_settings)
        expected_steps.update({s["id"]: (s["action"], {k: v for k, v in s.items() if k not in ("id", "action")})
                               for s in steps})
    pipeline = load_pipeline(f"f{len(files) - 1}", folder)
    assert pipeline.settings == expected_settings
    assert {sid: (s.action, s.params) for sid, s in pipeline.steps.items()} == expected_steps
    unreachable = [w for w in pipeline.warnings if "unreachable" in w]
    assert len(unreachable) == len(expected_steps) - 1  # only the entry is reachable
    typos = {w.split("settings.")[1].split(" ")[0] for w in pipeline.warnings if "typo" in w}
    assert typos == set(expected_settings) - {"entry_step_id"}  # a, b, c, d: no stage reads them


def test_a_fit_hook_lowers_settings_in_the_one_load_and_they_are_checked_again():
    from ragstream.config import load_settings

    defaults = vars(load_settings().limits)
    seen = []

    def fit(merged):
        seen.append(dict(merged))
        return {"max_context_tokens": 1000}
    pipeline = load_pipeline("base", defaults=defaults, overrides={"top_k": 7}, fit=fit)
    assert len(seen) == 1 and seen[0]["top_k"] == 7  # the hook sees the validated, merged settings once
    assert pipeline.settings["max_context_tokens"] == 1000 and pipeline.fitted == {"max_context_tokens": 1000}
    assert load_pipeline("base", defaults=defaults).fitted == {}
    with pytest.raises(PipelineError) as error:  # a lowered value out of bounds is named as an override
        load_pipeline("base", defaults=defaults, fit=lambda merged: {"max_context_tokens": 0})
    assert "overrides" in error.value.where and "max_context_tokens" in error.value.where
