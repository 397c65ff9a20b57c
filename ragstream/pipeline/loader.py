"""Pipeline files: YAML step graphs that inherit from each other through `extends`.

Merge rules, applied from the root parent down: settings deep-merge (the child wins); steps
merge by id (a new id is added, an existing id is replaced whole); the order of steps in a
file means nothing. After merging, the result is validated: the entry step exists, every
transition target exists, actions, parameters, parameter types and outcome branches are known
to the action registry, and steps no path reaches are reported. Every error names the file and
the step.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragstream.config import PROJECT_ROOT, deep_merge, read_yaml_mapping
from ragstream.errors import PipelineError
from ragstream.pipeline.registry import REGISTRY
from ragstream.stages.action import Action
from ragstream.pipeline.schema import setting_problem, unread_keys

PIPELINES_DIR = PROJECT_ROOT / "pipelines"
FILE_KEYS = {"extends", "settings", "steps"}
FROM_SETTINGS = "_from_settings"  # a parameter ending so names a settings key
DEFAULTS_SOURCE = "config limits"  # where a setting no pipeline file sets came from
OVERRIDES_SOURCE = "overrides (a command-line option or a workbench control)"
STEP_KEYS = {"id", "action", "next"}  # plus on_<outcome> branches; everything else is a parameter


@dataclass(frozen=True)
class Step:
    id: str
    action: str
    params: dict[str, Any]
    next: str | None
    branches: dict[str, str]  # outcome -> step id
    source: str  # the file that defined this step (last, after merging)


@dataclass(frozen=True)
class Pipeline:
    name: str
    files: tuple[str, ...]  # root parent first
    settings: dict[str, Any]
    steps: dict[str, Step]
    entry: str
    warnings: tuple[str, ...] = field(default=())
    fitted: Mapping[str, Any] = field(default_factory=dict)  # settings the `fit` hook lowered

    def transition(self, step: Step, outcome: str) -> str | None:
        """The step after `step` ended with `outcome` (None: the pipeline ends)."""
        return step.branches.get(outcome, step.next)


def load_pipeline(name: str, directory: Path = PIPELINES_DIR, registry: Mapping[str, Action] = REGISTRY,
                  overrides: Mapping[str, Any] | None = None, defaults: Mapping[str, Any] | None = None,
                  fit: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None) -> Pipeline:
    """Read `name` (a file name without `.yaml`, or a path), resolve `extends`, merge, validate.
    Settings: `defaults` (the configured N-constants), then the files root first, then
    `overrides` (a session's sliders, a CLI option), then what `fit` makes of the validated
    settings (overrides that lower them to fit, say, a local model's window), validated again."""
    chain = _chain(_path(name, directory))
    settings: dict[str, Any] = dict(defaults or {})
    origin = dict.fromkeys(settings, DEFAULTS_SOURCE)  # key -> the file (or source) that set it last
    steps: dict[str, Step] = {}
    for path, data in chain:
        settings = deep_merge(settings, data.get("settings") or {})
        origin.update(dict.fromkeys(data.get("settings") or {}, str(path)))
        steps.update(_steps(path, data.get("steps") or []))
    settings = deep_merge(settings, dict(overrides or {}))
    origin.update(dict.fromkeys(overrides or {}, OVERRIDES_SOURCE))
    files = tuple(str(p) for p, _ in chain)
    entry = settings.get("entry_step_id")
    if not isinstance(entry, str) or entry not in steps:
        raise PipelineError(f"settings.entry_step_id {entry!r} names no step; steps: {sorted(steps)}",
                            where=files[-1])
    _validate_all(settings, steps, registry, origin)
    fitted = dict(fit(settings)) if fit is not None else {}
    if fitted:
        settings = deep_merge(settings, fitted)
        origin.update(dict.fromkeys(fitted, OVERRIDES_SOURCE))
        _validate_all(settings, steps, registry, origin)
    named = {v for s in steps.values() for k, v in s.params.items() if k.endswith(FROM_SETTINGS)}
    unread = [f"{origin[k]}: settings.{k} is read by no stage and named by no step; is it a typo?"
              for k in unread_keys(settings, named)]
    return Pipeline(chain[-1][0].stem, files, settings, steps, entry, (*_unreachable(steps, entry), *unread), fitted)


def _validate_all(settings: Mapping[str, Any], steps: Mapping[str, Step], registry: Mapping[str, Action],
                  origin: Mapping[str, str]) -> None:
    """The merged settings, then every step against the registry and the settings."""
    for key, value in settings.items():
        problem = setting_problem(key, value)
        if problem:
            raise PipelineError(problem, where=f"{origin[key]}: settings.{key}")
    for step in steps.values():
        _validate(step, steps, registry, settings, origin)


def _path(name: str, directory: Path) -> Path:
    """A pipeline name (`base`) or file (`base.yaml`, a path), relative to `directory`."""
    path = Path(name) if Path(name).suffix in (".yaml", ".yml") else Path(f"{name}.yaml")
    path = path if path.is_absolute() else directory / path
    if not path.is_file():
        available = sorted(p.stem for p in directory.glob("*.yaml")) if directory.is_dir() else []
        raise PipelineError(f"no pipeline file {path.name}; available: {available}", where=str(path))
    return path


def _chain(path: Path) -> list[tuple[Path, dict]]:
    """The file and its ancestors, root parent first; a cycle is an error."""
    chain: list[tuple[Path, dict]] = []
    seen: list[Path] = []
    while True:
        resolved = path.resolve()
        if resolved in seen:
            cycle = " -> ".join(p.name for p in seen + [resolved])
            raise PipelineError(f"inheritance cycle: {cycle}", where=str(path))
        seen.append(resolved)
        data = _read(path)
        chain.append((path, data))
        parent = data.get("extends")
        if parent is None:
            return chain[::-1]
        if not isinstance(parent, str) or not parent:
            raise PipelineError(f"extends must be a pipeline name, got {parent!r}", where=f"{path}: extends")
        try:
            path = _path(parent, path.parent)  # a parent lives beside its child
        except PipelineError as exc:  # name the file that asked for it
            raise PipelineError(exc.message, where=f"{path}: extends") from exc


def _read(path: Path) -> dict:
    data = read_yaml_mapping(path, PipelineError)
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise PipelineError(f"unknown top-level key(s) {unknown}; known: {sorted(FILE_KEYS)}", where=str(path))
    if not isinstance(data.get("settings") or {}, dict):
        raise PipelineError("settings must be a mapping", where=f"{path}: settings")
    if not isinstance(data.get("steps") or [], list):
        raise PipelineError("steps must be a list of mappings", where=f"{path}: steps")
    return data


def _steps(path: Path, raw_steps: list) -> dict[str, Step]:
    steps: dict[str, Step] = {}
    for index, raw in enumerate(raw_steps):
        where = f"{path}: steps[{index}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
            raise PipelineError("a step is a mapping with a string `id`", where=where)
        step_id = raw["id"]
        where = f"{path}: step {step_id}"
        if step_id in steps:
            raise PipelineError("step id used twice in one file", where=where)
        if not isinstance(raw.get("action"), str):
            raise PipelineError("a step needs a string `action`", where=where)
        branches = {k[3:]: v for k, v in raw.items() if k.startswith("on_")}
        if raw.get("next") is not None and branches:
            raise PipelineError("a step has either `next` or `on_<outcome>` branches, not both", where=where)
        for target in [raw.get("next"), *branches.values()]:
            if target is not None and not isinstance(target, str):
                raise PipelineError(f"a transition target is a step id, got {target!r}", where=where)
        params = {k: v for k, v in raw.items() if k not in STEP_KEYS and not k.startswith("on_")}
        steps[step_id] = Step(step_id, raw["action"], params, raw.get("next"), branches, str(path))
    return steps


def _validate(step: Step, steps: Mapping[str, Step], registry: Mapping[str, Action],
              settings: Mapping[str, Any], origin: Mapping[str, str]) -> None:
    where = f"{step.source}: step {step.id}"
    spec = registry.get(step.action)
    if spec is None:
        raise PipelineError(f"unknown action {step.action!r}; known: {sorted(registry)}", where=where)
    for name, value in step.params.items():
        if name not in spec.params:
            raise PipelineError(f"unknown parameter {name!r} for {step.action}; known: {sorted(spec.params)}",
                                where=where)
        expected = spec.params[name]
        if (isinstance(value, bool) and expected is not bool) or not isinstance(value, expected):
            raise PipelineError(f"parameter {name} must be {_type_name(expected)}, got {value!r}", where=where)
        problem = setting_problem(name, value)
        if problem:
            raise PipelineError(problem, where=f"{where}: {name}")
        if not name.endswith(FROM_SETTINGS):
            continue
        if value not in settings:
            raise PipelineError(f"{name} names {value!r}, which the merged settings do not have", where=where)
        assert isinstance(value, str)  # a key of the settings, whose keys are str
        problem = setting_problem(name.removesuffix(FROM_SETTINGS), settings.get(value))
        if problem:
            raise PipelineError(f"{problem} (named by {name})",
                                where=f"{origin.get(value, step.source)}: settings.{value}, step {step.id}")
    for outcome in step.branches:
        if outcome not in spec.outcomes:
            raise PipelineError(f"on_{outcome}: {step.action} has no outcome {outcome!r}; "
                                f"outcomes: {list(spec.outcomes)}", where=where)
    for target in [step.next, *step.branches.values()]:
        if target is not None and target not in steps:
            raise PipelineError(f"transition to unknown step {target!r}", where=where)


def _unreachable(steps: Mapping[str, Step], entry: str) -> tuple[str, ...]:
    reached, queue = {entry}, deque([entry])
    while queue:
        step = steps[queue.popleft()]
        for target in [step.next, *step.branches.values()]:
            if target is not None and target not in reached:
                reached.add(target)
                queue.append(target)
    return tuple(f"{steps[s].source}: step {s} is unreachable from {entry}" for s in sorted(set(steps) - reached))


def _type_name(expected: type | tuple[type, ...]) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)
