"""Stage 3, retrieve: entry points for the question, from several query pieces, checked.

The query is decomposed into at most `N0_QUERY_PIECES` searches: the whole query, then each
identifier the question names (in bm25 and semantic mode only: a hybrid search already fuses the
code the question names, and a piece per identifier there outweighed the question itself); for a mixed
code-and-database question two of them search the whole query inside each domain (languages
narrowed, never widened) and keeps at least `mixed_domain_share` of its hits from each side. Every
piece returns up to `N1_RETR_MAX_CANDIDATES` candidates, and the aggregate keeps as many, the best
`top_k` of them the seeds (rerank may promote a later one);
per chunk the piece scores (each scaled by its piece's best) are aggregated by LogAvgExp,
`tau * log(mean_over_pieces(exp(score / tau)))`, where a piece that missed the chunk adds nothing but still
counts: chunks several pieces agree on rise. Unless the question is about tests (it says test,
fixture, sample, example, ...), hits under test or sample paths lose `tests_penalty` (the best hit
of a piece scores 1) before the best `top_k` are kept: their code repeats the words of what they
test, and a question about how something works wants the implementation. Hits in files a generator
wrote (the graph's `generated_files`: an EF model snapshot, a LINQ to SQL designer) lose
`generated_penalty` likewise: they are indexed for the mappings only they may hold, not to crowd
out the code people wrote. A long node split into
parts keeps only its best part, so its parts do not fill the `top_k` slots of distinct entry points.
Then an entry-point check: do the hits name the question's concepts, are there hits of
the asked domain, are they not mostly (`entry_tests_share`) tests or samples. A failed check
reformulates (the concepts and their synonyms, then the same words in hybrid mode), at most
twice; still failing, the outcome is `no_entry_points` rather than a guess, except when the only
problem was the missing database object: then the first search's hits are kept, with a warning.
What these choices did to the development figures: docs/EVALUATION.md.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ragstream.errors import PipelineError
from ragstream.keyword_tokens import keyword_tokens
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.stages.search_nodes import SearchPlan, clear_retrieval, plan_search, record_hits
from ragstream.retrieval.types import RetrievalBackend
from ragstream.test_paths import is_test_path
from ragstream.stages.action import QUESTION, SCOPE, Action
from ragstream.stages.settings import number
from ragstream.index.model import node_of
from ragstream.super_prompt import GRAPH_FIELDS, RETRIEVAL_FIELDS, TEXT_FIELDS, SuperPrompt

ACTIONS = (Action(
    "retrieve", "retrieve", lambda sp, rt, step, settings: run(sp, rt.backend, step, settings),
    ("ok", "no_entry_points"), {"top_k": int, "mode": str, "rerank": str},
    reads=QUESTION | SCOPE | {"concepts", "synonyms", "domain", "retrieval_query", "retrieval_mode", "rerank"},
    writes=frozenset(RETRIEVAL_FIELDS + GRAPH_FIELDS + TEXT_FIELDS) | {"extras.retrieve"}),)

DOMAIN_FILTERS = {"db": RetrievalFilters(languages=("sql",)),
                  "code": RetrievalFilters(languages=("python", "csharp"))}
TEST_WORDS = frozenset({"test", "tests", "testing", "pytest", "unittest", "fixture", "fixtures", "sample",
                        "samples", "example", "examples", "conftest"})
MAX_REFORMULATIONS = 2
NO_DATABASE_OBJECT = "no database object among the hits"
TABLE_ACCESS_EDGES = ("READS", "WRITES", "MAPS_TO")  # code with these is database evidence


def log_avg_exp(scores: list[float], pieces: int, tau: float) -> float:
    """tau * log(mean(exp(s / tau))) over `pieces`, the missing ones contributing nothing."""
    return tau * math.log(sum(math.exp(s / tau) for s in scores) / pieces)


def about_tests(question: str) -> bool:
    """Does the question ask about tests, samples or examples (its words, identifiers split at `_`)?"""
    return bool(TEST_WORDS & set(re.findall(r"[a-z]+", question.lower())))


def demote(ranked: list[tuple[float, str]], demoted: set[str], penalty: float) -> list[tuple[float, str]]:
    """(score, id) best first again after `penalty` is taken from the scores of the `demoted` ids."""
    return sorted(((score - penalty if cid in demoted else score, cid) for score, cid in ranked),
                  key=lambda item: (-item[0], item[1]))


def best_part_per_node(ranked: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The (score, id) list with only the best-ranked part of each split node: the parts of one long
    function are one entry point, and would otherwise fill the `top_k` slots."""
    seen: set[str] = set()
    kept = []
    for score, cid in ranked:
        node = node_of(cid)
        if node not in seen:
            seen.add(node)
            kept.append((score, cid))
    return kept


def decompose(query: str, concepts: list[str], limit: int, mode: str) -> list[str]:
    """The query itself, then (bm25 and semantic mode) each identifier concept (snake, camel or
    dotted), up to `limit`."""
    if mode == "hybrid":
        return [query]
    identifiers = [c for c in concepts if not c.isalpha() or c[1:] != c[1:].lower()]
    return list(dict.fromkeys([query, *identifiers]))[:limit]


def run(sp: SuperPrompt, backend: RetrievalBackend, step: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    limits = {"N0_QUERY_PIECES": number(settings, "N0_QUERY_PIECES", step),
              "N1_RETR_MAX_CANDIDATES": number(settings, "N1_RETR_MAX_CANDIDATES", step),
              "logavgexp_tau": number(settings, "logavgexp_tau", step, integer=False, minimum=1e-6),
              "entry_tests_share": number(settings, "entry_tests_share", step, integer=False, minimum=0),
              "tests_penalty": number(settings, "tests_penalty", step, integer=False, minimum=0),
              "generated_penalty": number(settings, "generated_penalty", step, integer=False, minimum=0),
              "mixed_domain_share": number(settings, "mixed_domain_share", step, integer=False, minimum=0)}
    clear_retrieval(sp)
    plan = plan_search(sp, dict(step), dict(settings))
    query = sp.retrieval_query.strip()
    if not query:
        raise PipelineError("the query is empty: route sets it", where=f"step {step.get('id', 'retrieve')}: query")
    # A mixed question spends two of its N0 searches on the domain split of the whole query.
    room = int(limits["N0_QUERY_PIECES"]) - (len(DOMAIN_FILTERS) if sp.domain == "mixed" else 0)
    attempts = [(plan, decompose(query, sp.concepts, max(1, room), plan.mode))]
    words = " ".join(dict.fromkeys([*sp.concepts, *sp.synonyms])) or query
    attempts += [(SearchPlan("bm25", plan.top_k, plan.filters, "none"), [words]),
                 (SearchPlan("hybrid", plan.top_k, plan.filters, "none"), [words])]
    log = []
    code_only: list[dict[str, Any]] | None = None  # the first hits whose one problem is the database check
    for attempt, (attempt_plan, pieces) in enumerate(attempts[: MAX_REFORMULATIONS + 1]):
        hits, demoted, marked = _aggregate(sp, backend, attempt_plan, pieces, limits)
        problems = _check(hits[:attempt_plan.top_k], sp, backend, limits["entry_tests_share"])
        log.append({"attempt": attempt, "mode": attempt_plan.mode, "pieces": pieces,
                    "domain_searches": sorted(DOMAIN_FILTERS) if sp.domain == "mixed" else [],
                    "hits": len(hits), "tests_demoted": demoted, **marked, "problems": problems})
        if not problems:
            return _found(sp, hits, log, plan.top_k)
        if code_only is None and problems == [NO_DATABASE_OBJECT]:
            code_only = hits
    if code_only is not None:
        # Code that names the question's concepts is evidence still: a question that sounds like
        # one about the database ("the distributed lock for SQL Server") may be answered by code.
        return _found(sp, code_only, log, plan.top_k, [f"kept the first search's hits: {NO_DATABASE_OBJECT}"])
    sp.extras = {**sp.extras, "retrieve": {"attempts": log, "path": "deterministic",
                                           "warnings": _search_warnings(log)}}
    return "no_entry_points"


def _found(sp: SuperPrompt, hits: list[dict[str, Any]], log: list[dict[str, Any]], seeds: int,
           warnings: list[str] | None = None) -> str:
    record_hits(sp, hits, seeds)
    sp.views_by_stage = {"retrieve": list(sp.retrieval_seed_nodes)}
    sp.extras = {**sp.extras, "retrieve": {"attempts": log, "path": "deterministic",
                                           "warnings": _search_warnings(log) + (warnings or [])}}
    return "ok"


def _search_warnings(log: list[dict[str, Any]]) -> list[str]:
    """What the backend said its searches missed, once each (a partial semantic index)."""
    return list(dict.fromkeys(w for entry in log for w in entry["search_warnings"]))


def _aggregate(sp: SuperPrompt, backend: RetrievalBackend, plan: SearchPlan, pieces: list[str],
               limits: Mapping[str, float]) -> tuple[list[dict[str, Any]], int, dict[str, list[str]]]:
    """(the aggregated hits, best first; how many candidates lost `tests_penalty`; the kept hits
    a hybrid search scaled down as exception types, from its debug record, and those its change
    history ranked)."""
    searches: list[tuple[str, RetrievalFilters | None]] = [(piece, None) for piece in pieces]
    if sp.domain == "mixed":
        searches += [(pieces[0], DOMAIN_FILTERS["db"]), (pieces[0], DOMAIN_FILTERS["code"])]
    found: dict[str, list[float]] = {}
    sources: dict[str, dict[str, int]] = {}
    symptoms: set[str] = set()
    from_history: set[str] = set()
    notes: dict[str, None] = {}  # what the searches missed (a semantic fill still running), in order
    for index, (piece, extra) in enumerate(searches):
        response = backend.search(plan.request(sp, piece, extra, int(limits["N1_RETR_MAX_CANDIDATES"])))
        notes.update(dict.fromkeys(response.debug.get("warnings", ())))
        hits = response.hits
        symptoms.update(response.debug.get("symptoms_scaled", ()))
        from_history.update(hit.id for hit in hits if "history" in hit.sources)
        best = max((h.score for h in hits), default=0.0) or 1.0
        for hit in hits:
            found.setdefault(hit.id, []).append(hit.score / best)
            sources.setdefault(hit.id, {})[f"piece{index}"] = hit.rank
    ranked = sorted(((log_avg_exp(s, len(searches), limits["logavgexp_tau"]), cid) for cid, s in found.items()),
                    key=lambda item: (-item[0], item[1]))
    demoted: set[str] = set()
    if limits["tests_penalty"] and not about_tests(sp.question_en or sp.question_raw or sp.retrieval_query):
        demoted = _test_ids(sp, backend, list(found))
        ranked = demote(ranked, demoted, limits["tests_penalty"])
    if limits["generated_penalty"]:
        ranked = demote(ranked, _generated_ids(sp, backend, list(found)), limits["generated_penalty"])
    ranked = best_part_per_node(ranked)
    seeds = min(plan.top_k, int(limits["N1_RETR_MAX_CANDIDATES"]))
    scored = (_with_both_domains(ranked, seeds, limits["mixed_domain_share"]) if sp.domain == "mixed"
              else ranked[:seeds])
    # The candidates past the seeds stay, in rank order: rerank may promote one, and they are
    # what the search found next (an answer never ranks below the search it ran).
    chosen = {cid for _, cid in scored}
    scored += [x for x in ranked if x[1] not in chosen][: int(limits["N1_RETR_MAX_CANDIDATES"]) - len(scored)]
    return ([{"id": cid, "score": round(score, 6), "rank": rank, "sources": sources[cid]}
             for rank, (score, cid) in enumerate(scored, start=1)], len(demoted),
            {"symptoms_scaled": [cid for _, cid in scored if cid in symptoms],
             "from_change_history": [cid for _, cid in scored if cid in from_history],
             "search_warnings": list(notes)})


def _test_ids(sp: SuperPrompt, backend: RetrievalBackend, ids: list[str]) -> set[str]:
    """The ids among `ids` whose chunks lie under test or sample paths."""
    spans = backend.locations(ids, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    root = _code_root(sp, backend)
    return {cid for cid, span in spans.items() if is_test_path(span.rsplit(":", 1)[0], root)}


def _generated_ids(sp: SuperPrompt, backend: RetrievalBackend, ids: list[str]) -> set[str]:
    """The ids among `ids` whose chunks lie in files a generator wrote (the graph's `generated_files`)."""
    generated = set(backend.graph(sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
                    .graph.get("generated_files", ()))
    if not generated:
        return set()
    spans = backend.locations(ids, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    return {cid for cid, span in spans.items() if span.rsplit(":", 1)[0] in generated}


def _code_root(sp: SuperPrompt, backend: RetrievalBackend) -> str:
    """The folder all the index's files share (`test_paths.code_root`)."""
    return backend.graph(sp.repository, sp.branch, sp.retrieval_filters, sp.active_index).graph.get("code_root", "")


def _with_both_domains(ranked: list[tuple[float, str]], keep: int, share: float) -> list[tuple[float, str]]:
    """The best `keep`, but with at least `share` of them (one at least) from each side,
    database and code, when the ranking has them: a mixed question needs both ends."""
    reserve = max(1, int(keep * share))
    chosen = {cid for _, cid in [x for x in ranked if _is_db(x[1])][:reserve]}
    chosen |= {cid for _, cid in [x for x in ranked if not _is_db(x[1])][:reserve]}
    for _, cid in ranked:
        if len(chosen) >= keep:
            break
        chosen.add(cid)
    return [x for x in ranked if x[1] in chosen][:keep]


def _is_db(cid: str) -> bool:
    return cid.startswith("sql:") or cid.endswith(".sql|FILE")


def _check(hits: list[dict[str, Any]], sp: SuperPrompt, backend: RetrievalBackend,
           tests_share: float) -> list[str]:
    """What is wrong with these entry points (nothing: they are good enough to go on)."""
    if not hits:
        return ["no hits"]
    top = [h["id"] for h in hits[:10]]
    problems = []
    spans = backend.locations(top, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    paths = [spans[i].rsplit(":", 1)[0] for i in top if i in spans]
    root = _code_root(sp, backend) if paths else ""
    if paths and sum(is_test_path(p, root) for p in paths) / len(paths) >= tests_share:
        problems.append("mostly tests or samples")
    wanted = {t for c in sp.concepts for t in keyword_tokens(c)} or set(keyword_tokens(sp.retrieval_query))
    named = {t for i in top for t in keyword_tokens(i)}
    if wanted and not wanted & named:
        texts = backend.fetch_texts(top, sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
        if not any(wanted & set(keyword_tokens(t)) for t in texts.values()):
            problems.append("no hit names a concept of the question")
    if sp.domain == "db" and not any(_is_db(i) for i in top) and not _database_code(sp, backend, top):
        problems.append(NO_DATABASE_OBJECT)
    return problems



def _database_code(sp: SuperPrompt, backend: RetrievalBackend, ids: list[str]) -> bool:
    """Is any hit code that is database evidence: an EF entity, DbContext, entity configuration or
    migration (`ef_role`), or code whose edges read, write or map tables? An EF-only codebase has
    no SQL files, and its questions about the database are answered by such code."""
    graph = backend.graph(sp.repository, sp.branch, sp.retrieval_filters, sp.active_index)
    nodes = [node_of(i) for i in ids if node_of(i) in graph]
    return any(graph.nodes[n].get("attrs", {}).get("ef_role")
               or any(key in TABLE_ACCESS_EDGES for _, _, key in graph.out_edges(n, keys=True)) for n in nodes)

