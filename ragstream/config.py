"""Settings: `config/defaults.yaml` deep-merged with an optional user file, checked key by key."""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from ragstream.bounds import LIMITS, WEIGHT, Bound, ints, numbers
from ragstream.errors import ConfigError, RagstreamError
from ragstream.globs import compile_globs

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INDEX_NAME = "self"  # the bundled default index: ragstream indexing its own source
DEFAULTS_FILE = PROJECT_ROOT / "config" / "defaults.yaml"


@dataclass(frozen=True)
class IndexSettings:
    data_dir: str
    max_file_bytes: int
    max_files: int  # a walk that meets more files stops with an error: rarely the repository meant
    max_line_chars: int
    sql_dialect: str
    languages: dict[str, str]
    ignore: list[str]
    vendored_dirs: list[str]
    lock_files: list[str]
    generated_files: list[str]
    generated_markers: list[str]
    secret_files: list[str]
    change_history_commits: int  # how many recent commits' messages and changed definitions to index (0: none)
    python_call_guesses: bool  # link a Python call on a receiver nothing is known about by method name (a guess)
    watch_debounce_ms: int  # `index --watch`: a refresh starts once files have been quiet this long
    watch_in_workbench: bool  # the workbench follows the local index it serves (`index --watch` in a child)


@dataclass(frozen=True)
class ChunkSettings:
    max_chunk_tokens: int
    header_max_names: int


@dataclass(frozen=True)
class EmbeddingSettings:
    dtype: str
    batch_size: int
    onnx_below: int
    window_tokens: int  # word pieces a semantic window holds (the model reads 256)


@dataclass(frozen=True)
class TokenSettings:
    encoding: str


@dataclass(frozen=True)
class AclSettings:
    """Index-time access policy: every chunk gets the defaults plus what matching rules add."""

    default_tags: list[str]
    default_labels: list[str]
    default_owner: str
    rules: list[dict]  # {paths: [globs], acl_tags: [...], classification_labels: [...], owner_group: str}


@dataclass(frozen=True)
class RetrievalSettings:
    backend: str  # local (FAISS + bm25s files) | milvus (a published index on milvus.uri)
    rrf_k: int
    fusion_depth: int  # hybrid: candidates each source ranks before fusion, whatever top_k is asked
    bm25_missing: str  # fail | semantic
    widen_factor: int
    keyword_semantic_weight: float
    keyword_keyword_weight: float
    cross_encoder_model: str  # local path or model name; "" = none configured
    semantic_weight: float  # hybrid: RRF weight of the semantic ranking
    bm25_weight: float  # hybrid: RRF weight of the bm25 ranking
    mention_weight: float  # hybrid: RRF weight of the code the question names (0: off)
    file_evidence_weight: float  # hybrid: share of a file's best scores added to each of its hits
    file_evidence_chunks: int  # how many of a file's best hits make its evidence
    symptom_weight: float  # hybrid: scale of the fused score of unnamed exception types' definitions (1: off)
    change_history_weight: float  # hybrid: RRF weight of what past commits with matching messages changed (0: off)
    change_history_matches: int  # how many best-matching past commits give their definitions
    change_history_half_life: float  # a past change's match halves for every this many past changes back (0: no decay)
    graph_rank_weight: float  # graph re-ranking: weight of personalised PageRank against the retrieval score


@dataclass(frozen=True)
class MilvusSettings:
    """Where published indexes live (retrieval.backend: milvus); credentials only from $MILVUS_TOKEN."""

    uri: str  # a file path (Milvus Lite) or http://host:19530


@dataclass(frozen=True)
class LLMSettings:
    """Language models: one OpenAI-compatible endpoint, a model per role, retry policy."""

    provider: str  # none | openai | local
    base_url: str  # "" = $OPENAI_BASE_URL, else the OpenAI API
    model: str  # the default model of every role
    roles: dict[str, str]  # role -> model, overriding `model`
    local_gguf: str  # provider local: the GGUF file ("" = the bundled demo model)
    local_ctx_size: int  # provider local: the model's context window in tokens
    temperature: float
    seed: int
    timeout_seconds: float  # one request's deadline, streamed or not: connect, wait, every piece
    first_token_seconds: float  # a request with no reply (or a stream with no piece) this long has stalled
    turn_seconds: float  # every model call of one question together; past it, stages fall back at once
    max_retries: int
    backoff_seconds: float  # the first wait; each retry doubles it (2, 4, 8, 16, 32 s)
    max_backoff_seconds: float  # no wait is longer, not even one a server asks for
    max_reply_tokens: int  # sent as max_tokens; 0 = the server's default


@dataclass(frozen=True)
class LimitSettings:
    """N-constants and budget defaults that pipelines start from (names as pipelines use them)."""

    N0_QUERY_PIECES: int  # the constants' names in docs/DESIGN.md
    N1_RETR_MAX_CANDIDATES: int
    logavgexp_tau: float
    N2_RERANK_TOP_K: int
    N3_FINAL_SELECTION_MAX: int
    gate_duplicate_jaccard: float
    gate_candidate_chars: int
    max_history_tokens: int
    max_attachment_tokens: int
    answer_max_citations: int
    answer_best_lines: int
    route_short_question_words: int
    route_lookup_max_words: int
    entry_tests_share: float
    tests_penalty: float
    generated_penalty: float
    mixed_domain_share: float
    max_turn_loops: int
    history_summary_share: float
    max_question_chars: int  # a longer question is refused, naming this limit


@dataclass(frozen=True)
class Settings:
    index: IndexSettings
    chunks: ChunkSettings
    embedding: EmbeddingSettings
    tokens: TokenSettings
    acl: AclSettings
    retrieval: RetrievalSettings
    milvus: MilvusSettings
    llm: LLMSettings
    limits: LimitSettings


def load_settings(user_file: str | Path | None = None, overrides: dict | None = None) -> Settings:
    """Defaults, then the user's file, then in-code overrides; unknown keys are errors."""
    merged = _read_yaml(DEFAULTS_FILE)
    source = str(DEFAULTS_FILE)
    if user_file is not None:
        merged = deep_merge(merged, _read_yaml(Path(user_file)))
        source = str(user_file)
    if overrides:
        merged = deep_merge(merged, overrides)
        source += " (with overrides)"
    settings = _build(Settings, merged, source, "")
    _check_values(settings, source)
    return settings


# Settings with a closed set of values.
CHOICES = {
    "index.sql_dialect": ("auto", "tsql", "postgres", "mysql", "generic"),
    "embedding.dtype": ("bfloat16", "float32"),
    "tokens.encoding": ("cl100k_base", "o200k_base"),
    "retrieval.bm25_missing": ("fail", "semantic"),
    "retrieval.backend": ("local", "milvus"),
    "llm.provider": ("none", "openai", "local"),
}
# The roles a model can play (config/prompts/<role>.md holds each one's prompt).
LLM_ROLES = ("router", "shaper", "gate", "condenser", "format", "answer", "summarizer", "translator")
# Every numeric setting's range (types are checked by the dataclass fields already).
RANGES: dict[str, Bound] = {
    "index.max_file_bytes": ints(1, 1_000_000_000), "index.max_files": ints(1, 100_000_000),
    "index.max_line_chars": ints(1, 10_000_000),
    "index.change_history_commits": ints(0, 1_000_000),
    "index.watch_debounce_ms": ints(10, 600_000),
    "chunks.max_chunk_tokens": ints(1, 100_000), "chunks.header_max_names": ints(1, 10_000),
    "embedding.batch_size": ints(1, 4096), "embedding.onnx_below": ints(0, 1_000_000_000),
    "embedding.window_tokens": ints(1, 8192),
    "retrieval.rrf_k": ints(1, 1_000_000), "retrieval.fusion_depth": ints(1, 10_000),
    "retrieval.widen_factor": ints(1, 100),
    "retrieval.keyword_semantic_weight": WEIGHT, "retrieval.keyword_keyword_weight": WEIGHT,
    "retrieval.semantic_weight": WEIGHT, "retrieval.bm25_weight": WEIGHT, "retrieval.mention_weight": WEIGHT,
    "retrieval.file_evidence_weight": WEIGHT, "retrieval.file_evidence_chunks": ints(1, 1000),
    "retrieval.symptom_weight": WEIGHT, "retrieval.change_history_weight": WEIGHT,
    "retrieval.change_history_matches": ints(1, 1000), "retrieval.change_history_half_life": numbers(0, 1e9),
    "retrieval.graph_rank_weight": WEIGHT,
    "llm.local_ctx_size": ints(1, 10_000_000), "llm.temperature": numbers(0, 2),
    "llm.seed": ints(-(2 ** 63), 2 ** 63 - 1),
    "llm.timeout_seconds": numbers(0, 3600, open_low=True), "llm.first_token_seconds": numbers(0, 3600, open_low=True),
    "llm.turn_seconds": numbers(0, 86_400, open_low=True), "llm.max_retries": ints(0, 10),
    "llm.backoff_seconds": numbers(0, 600), "llm.max_backoff_seconds": numbers(0, 3600),
    "llm.max_reply_tokens": ints(0, 10_000_000),
    **{f"limits.{name}": bound for name, bound in LIMITS.items()},
}
LANGUAGES = ("python", "sql", "csharp", "razor", "text")
ACL_RULE_KEYS = ("paths", "acl_tags", "classification_labels", "owner_group")


def _check_values(settings: Settings, source: str) -> None:
    for key, allowed in CHOICES.items():
        value = _get(settings, key)
        if value not in allowed:
            raise ConfigError(f"{value!r} is not one of {allowed}", where=f"{source}: {key}")
    for key, bound in RANGES.items():
        problem = bound.problem(_get(settings, key))
        if problem:
            raise ConfigError(problem, where=f"{source}: {key}")
    for suffix, language in settings.index.languages.items():
        if language not in LANGUAGES:
            raise ConfigError(f"{suffix}: {language!r} is not one of {LANGUAGES}", where=f"{source}: index.languages")
    unknown_roles = sorted(set(settings.llm.roles) - set(LLM_ROLES))
    if unknown_roles:
        raise ConfigError(f"unknown role(s) {unknown_roles}; roles: {list(LLM_ROLES)}", where=f"{source}: llm.roles")
    _check_data_dir(settings.index.data_dir, f"{source}: index.data_dir")
    compile_globs(settings.index.ignore, f"{source}: index.ignore", ConfigError)
    _check_acl_rules(settings.acl.rules, f"{source}: acl.rules")


def _check_data_dir(data_dir: str, where: str) -> None:
    """The data folder, or the first of its parents that exists, must be a folder: a file there
    would fail the first build or search that writes under it."""
    folder = Path(data_dir).expanduser()
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        what = "is a file" if existing == folder else f"is under {existing}, which is a file"
        raise ConfigError(f"{data_dir!r} {what}, not a folder", where=where,
                          hint="set index.data_dir to a folder (it is made if missing)")


def _check_acl_rules(rules: list[dict], where: str) -> None:
    """Each access rule whole, at load time: its keys, value types and globs (`globs.py`)."""
    for index, rule in enumerate(rules):
        at = f"{where}[{index}]"
        unknown = sorted(set(rule) - set(ACL_RULE_KEYS))
        if unknown:
            raise ConfigError(f"unknown key(s) {unknown}; known: {sorted(ACL_RULE_KEYS)}", where=at)
        paths = rule.get("paths")
        if not paths or not _strings(paths):
            raise ConfigError(f"must be a non-empty list of globs, got {paths!r}", where=f"{at}.paths")
        for key in ("acl_tags", "classification_labels"):
            if not _strings(rule.get(key, [])):
                raise ConfigError(f"must be a list of strings, got {rule[key]!r}", where=f"{at}.{key}")
        owner = rule.get("owner_group")
        if owner is not None and not isinstance(owner, str):
            raise ConfigError(f"must be a string, got {owner!r}", where=f"{at}.owner_group")
        compile_globs(paths, f"{at}.paths", ConfigError)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _get(settings: Settings, dotted: str):
    section, name = dotted.split(".")
    return getattr(getattr(settings, section), name)


def deep_merge(base: dict, override: dict) -> dict:
    """Merge `override` into a copy of `base`: nested mappings merge, anything else is replaced."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _read_yaml(path: Path) -> dict:
    if not path.is_file():
        raise ConfigError("configuration file not found", where=str(path))
    return read_yaml_mapping(path, ConfigError)


def read_yaml_mapping(path: Path, error: type[RagstreamError]) -> dict:
    """A YAML file whose top level is a mapping; a syntax error names the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not a text file: byte {exc.start} is not UTF-8 (a YAML file is UTF-8 text)",
                    where=str(path)) from exc
    except OSError as exc:
        raise error(f"cannot read the file: {exc.strerror or exc}", where=str(path)) from exc
    try:
        data = yaml.safe_load(text) or {}
    except RecursionError as exc:  # the loader recurses once per level of nesting
        raise error("nested too deeply to be settings (thousands of levels)", where=str(path)) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise error(f"invalid YAML: {getattr(exc, 'problem', exc)}", where=where) from exc
    if not isinstance(data, dict):
        raise error("top level must be a mapping", where=str(path))
    return data


def _build(cls: type, data: Any, source: str, prefix: str) -> Any:
    """Build dataclass `cls` from a mapping, naming the file and dotted key of any mistake."""
    where = f"{source}: {prefix.rstrip('.') or '<root>'}"
    if not isinstance(data, dict):
        raise ConfigError(f"expected a mapping, got {type(data).__name__}", where=where)
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"unknown setting(s) {unknown}; known: {sorted(known)}", where=where)
    values = {}
    for name, f in known.items():
        key = f"{prefix}{name}"
        if name not in data:
            raise ConfigError("missing setting", where=f"{source}: {key}")
        value = data[name]
        type_name = f.type
        assert isinstance(type_name, str), "annotations are strings here (from __future__ import annotations)"
        if type_name in _SECTIONS:
            value = _build(_SECTIONS[type_name], value, source, key + ".")
        else:
            _check_type(value, type_name, f"{source}: {key}")
        values[name] = value
    return cls(**values)


_SECTIONS = {c.__name__: c for c in (IndexSettings, ChunkSettings, EmbeddingSettings, TokenSettings,
                                     AclSettings, RetrievalSettings, MilvusSettings, LLMSettings, LimitSettings)}
_SIMPLE: dict[str, type | tuple[type, ...]] = {"int": int, "str": str, "float": (int, float), "bool": bool}
_CONTAINERS: dict[str, type] = {"list[str]": list, "dict[str, str]": dict, "list[dict]": list}


def _check_type(value: Any, type_name: str, where: str) -> None:
    expected = _SIMPLE.get(type_name) or _CONTAINERS[type_name]
    ok = isinstance(value, expected) and not (type_name == "int" and isinstance(value, bool))
    if ok and type_name == "list[str]":
        ok = all(isinstance(v, str) for v in value)
    if ok and type_name == "list[dict]":
        ok = all(isinstance(v, dict) for v in value)
    if ok and type_name == "dict[str, str]":
        ok = all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    if not ok:
        raise ConfigError(f"expected {type_name}, got {value!r}", where=where)
