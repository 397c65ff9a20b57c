"""Settings: `config/defaults.yaml` deep-merged with an optional user file, checked key by key."""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from ragstream.errors import ConfigError, RagstreamError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULTS_FILE = PROJECT_ROOT / "config" / "defaults.yaml"


@dataclass(frozen=True)
class IndexSettings:
    data_dir: str
    max_file_bytes: int
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
    timeout_seconds: float
    max_retries: int
    backoff_seconds: float  # the first wait; each retry doubles it (2, 4, 8, 16, 32 s)
    max_backoff_seconds: float  # no wait is longer, not even one a server asks for
    max_reply_tokens: int  # sent as max_tokens; 0 = the server's default


@dataclass(frozen=True)
class LimitSettings:
    """N-constants and budget defaults that pipelines start from (names as pipelines use them)."""

    N0_QUERY_PIECES: int  # noqa: N815 - the constants' names in DESIGN.md
    N1_RETR_MAX_CANDIDATES: int  # noqa: N815
    logavgexp_tau: float
    N2_RERANK_TOP_K: int  # noqa: N815
    N3_FINAL_SELECTION_MAX: int  # noqa: N815
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
    mixed_domain_share: float
    max_turn_loops: int
    history_summary_share: float


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


# Settings with a closed set of values, and settings that must be positive.
CHOICES = {
    "index.sql_dialect": ("auto", "tsql", "postgres", "generic"),
    "embedding.dtype": ("bfloat16", "float32"),
    "tokens.encoding": ("cl100k_base", "o200k_base"),
    "retrieval.bm25_missing": ("fail", "semantic"),
    "retrieval.backend": ("local", "milvus"),
    "llm.provider": ("none", "openai", "local"),
}
# The roles a model can play (config/prompts/<role>.md holds each one's prompt).
LLM_ROLES = ("router", "shaper", "gate", "condenser", "format", "answer", "summarizer", "translator")
POSITIVE = ("index.max_file_bytes", "index.max_line_chars", "chunks.max_chunk_tokens",
            "chunks.header_max_names", "embedding.batch_size", "embedding.window_tokens", "retrieval.rrf_k",
            "retrieval.widen_factor", "retrieval.file_evidence_chunks", "retrieval.change_history_matches",
            "limits.N0_QUERY_PIECES", "limits.N1_RETR_MAX_CANDIDATES",
            "limits.N2_RERANK_TOP_K", "limits.N3_FINAL_SELECTION_MAX", "limits.max_history_tokens", "limits.max_attachment_tokens",
            "limits.answer_max_citations", "limits.gate_candidate_chars",
            "llm.local_ctx_size")
ABOVE_ZERO = ("llm.timeout_seconds",)
NON_NEGATIVE = ("index.change_history_commits", "embedding.onnx_below",
                "retrieval.keyword_semantic_weight", "retrieval.keyword_keyword_weight",
                "retrieval.semantic_weight", "retrieval.bm25_weight", "retrieval.mention_weight",
                "retrieval.file_evidence_weight", "retrieval.symptom_weight", "retrieval.change_history_weight",
                "retrieval.change_history_half_life", "retrieval.graph_rank_weight",
                "llm.temperature", "llm.max_retries", "llm.backoff_seconds", "llm.max_backoff_seconds", "llm.max_reply_tokens",
                "limits.max_turn_loops", "limits.history_summary_share")
LANGUAGES = ("python", "sql", "csharp", "razor", "text")


def _check_values(settings: Settings, source: str) -> None:
    for key, allowed in CHOICES.items():
        value = _get(settings, key)
        if value not in allowed:
            raise ConfigError(f"{value!r} is not one of {allowed}", where=f"{source}: {key}")
    for key in POSITIVE:
        if _get(settings, key) < 1:
            raise ConfigError(f"must be >= 1, got {_get(settings, key)}", where=f"{source}: {key}")
    for suffix, language in settings.index.languages.items():
        if language not in LANGUAGES:
            raise ConfigError(f"{suffix}: {language!r} is not one of {LANGUAGES}", where=f"{source}: index.languages")
    for key in ABOVE_ZERO:
        if _get(settings, key) <= 0:
            raise ConfigError(f"must be > 0, got {_get(settings, key)}", where=f"{source}: {key}")
    unknown_roles = sorted(set(settings.llm.roles) - set(LLM_ROLES))
    if unknown_roles:
        raise ConfigError(f"unknown role(s) {unknown_roles}; roles: {list(LLM_ROLES)}", where=f"{source}: llm.roles")
    if settings.limits.history_summary_share >= 1:
        raise ConfigError("must be below 1 (the summary shares the history budget with recent turns)",
                          where=f"{source}: limits.history_summary_share")
    for key in NON_NEGATIVE:
        if _get(settings, key) < 0:
            raise ConfigError(f"must be >= 0, got {_get(settings, key)}", where=f"{source}: {key}")


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
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
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
        if isinstance(f.type, str) and f.type in _SECTIONS:
            value = _build(_SECTIONS[f.type], value, source, key + ".")
        else:
            _check_type(value, f.type, f"{source}: {key}")
        values[name] = value
    return cls(**values)


_SECTIONS = {c.__name__: c for c in (IndexSettings, ChunkSettings, EmbeddingSettings, TokenSettings,
                                     AclSettings, RetrievalSettings, MilvusSettings, LLMSettings, LimitSettings)}
_SIMPLE = {"int": int, "str": str, "float": (int, float), "bool": bool}
_CONTAINERS = {"list[str]": list, "dict[str, str]": dict, "list[dict]": list}


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
