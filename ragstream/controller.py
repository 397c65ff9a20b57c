"""What the CLI and the workbench call: one place that builds the runtime, computes the scope a
question is asked under, loads pipelines and runs them. Front ends hold no logic of their own."""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ragstream import catalog
from ragstream.answer_sources import BASIS, Basis, SourceChanges, SourceTables, path_visibility, record_basis
from ragstream.config import LLMSettings, Settings
from ragstream.errors import HistoryError, PipelineError, RagstreamError, RetrievalError
from ragstream.failures import Failure
from ragstream.graph.guesses import graph_for
from ragstream.graph.named import find_named, named_by_word
from ragstream.graph.questions import main_subjects
from ragstream.graph.relations_view import graph_answer_data, neighbourhood_data
from ragstream.history import HistoryStore, SessionInfo, Turn
from ragstream.index import store
from ragstream.index.build import locate, repository_info
from ragstream.index.build_events import child_exit_code
from ragstream.index.graph_mark import graph_note
from ragstream.llm.connect import connect
from ragstream.llm.turn import ProgressSink
from ragstream.pipeline.engine import Engine, Runtime, StepResult
from ragstream.pipeline.loader import Pipeline, Step, load_pipeline
from ragstream.pipeline.registry import REGISTRY, STAGES
from ragstream.question import Question, check_question
from ragstream.redact import redact_text
from ragstream.retrieval.backends import make_backend, make_backend_for, serves_locally
from ragstream.retrieval.filters import RetrievalFilters
from ragstream.retrieval.scope import default_scope
from ragstream.retrieval.store_backend import StoreBackend
from ragstream.retrieval.types import SearchRequest, SearchResponse
from ragstream.stages.conversation import make_scope_key
from ragstream.stages.follow_up import RELATION_NAMES, relation_answer
from ragstream.super_prompt import SuperPrompt, field_default
from ragstream.token_count import token_counter


HISTORY_FILE = "history.sqlite"  # in index.data_dir, beside the indexes
FOLLOW_LEASE_SECONDS = 120.0  # a session that has not asked for its watcher this long is gone (a closed tab)
LOG = logging.getLogger("ragstream")


@dataclass(frozen=True)
class Scope:
    repository: str
    branch: str
    active_index: str | None = None
    retrieval_filters: dict[str, list[str]] = field(default_factory=dict)
    index_source: str = ""  # "" the configured retrieval.backend; "local" the data folder; "shared" Milvus

    def with_filters(self, filters: Mapping[str, list[str]]) -> Scope:
        """This scope under the caller's security filters."""
        return replace(self, retrieval_filters=dict(filters))


def resolve_scope(settings: Settings, repository: str | None = None, index: str | None = None,
                  branch: str | None = None, source: str = "") -> Scope:
    """The scope a front end asks under: what it names, the rest taken from the data folder (the
    only repository, its only index, the index's branch) or from Milvus (the published branch).
    The source is named as the workbench names it ("local", "shared"), so a conversation's scope
    is the same in every front end."""
    source = source or ("local" if serves_locally(settings, "") else "shared")
    repository, index, branch = default_scope(settings, repository, index, branch, source)
    return Scope(repository, branch, index, index_source=source)


def search(settings: Settings, scope: Scope, mode: str, query: str, top_k: int, rerank: str = "none",
           backend: StoreBackend | None = None) -> tuple[SearchRequest, SearchResponse, dict[str, str]]:
    """One search under `scope`, with no pipeline and no model: (request, response, each hit's
    `path:start-end`). `backend`: a process's own, with its indexes loaded (`Controller.search`);
    else one is made for this search."""
    backend = backend or make_backend_for(settings, scope.index_source)
    query = redact_text(query)  # a secret pasted into a query is never searched for, logged or echoed
    request = SearchRequest(mode, query, top_k, scope.repository, scope.branch,
                            RetrievalFilters.parse(scope.retrieval_filters), scope.active_index, rerank)
    response = backend.search(request)
    where = backend.locations([h.id for h in response.hits], request.repository, request.branch,
                              request.retrieval_filters, request.active_index)
    return request, response, where


def scope_key(scope: Scope) -> str:
    """The key the history stage binds a conversation to, for a question asked under `scope`."""
    return make_scope_key(scope.repository, scope.branch, scope.active_index, scope.retrieval_filters,
                          scope.index_source)


class Controller:
    """Holds the runtime (backend with its loaded indexes, token counter, language-model client,
    history store) for a process; `close` stops what it started (a local model server)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._resources = ExitStack()
        llm = self._resources.enter_context(connect(settings.llm))
        self.history = HistoryStore(Path(settings.index.data_dir) / HISTORY_FILE)
        self.runtime = Runtime(make_backend(settings), token_counter(settings.tokens.encoding), llm, self.history)
        self._local: StoreBackend | None = None  # the data folder's, when the configured one is shared
        self._builds: dict[tuple[str, str | None], catalog.BuildJob] = {}
        self._watches: dict[tuple[Path, str], catalog.WatchJob] = {}  # the watching builders (`follow`), by target
        self._followers: dict[str, tuple[tuple[Path, str], float]] = {}  # session -> (its target, when last seen)
        self._stopping: dict[tuple[Path, str], catalog.WatchJob] = {}  # taken out, their child not yet ended
        self._following = threading.Lock()  # the workbench's sessions call `follow` from their own threads
        self._sources = SourceTables(settings)

    def close(self) -> None:
        with self._following:
            self._followers.clear()
            stopped = self._unfollowed(time.monotonic())
        self._stop(stopped)
        self._resources.close()

    def __enter__(self) -> "Controller":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pipeline(self, name: str, overrides: dict[str, Any] | None = None) -> Pipeline:
        """The pipeline `name` under the configured limits and `overrides`, loaded once: with a
        local model, its budgets lowered to fit the model's window (and a warning saying so)."""
        retrieval = self.settings.retrieval
        defaults = {**vars(self.settings.limits), "keyword_semantic_weight": retrieval.keyword_semantic_weight,
                    "keyword_keyword_weight": retrieval.keyword_keyword_weight}
        pipeline = load_pipeline(name, overrides=overrides, defaults=defaults,
                                 fit=lambda settings: fit_local_window(settings, self.settings.llm))
        if not pipeline.fitted:
            return pipeline
        said = ", ".join(f"{key} {value}" for key, value in pipeline.fitted.items())
        return replace(pipeline, warnings=(*pipeline.warnings, f"lowered to fit the local model's window of "
                                           f"{self.settings.llm.local_ctx_size} tokens (llm.local_ctx_size): {said}"))

    def scope(self, repository: str | None = None, index: str | None = None, branch: str | None = None,
              source: str = "") -> Scope:
        """The scope a front end's choices name (`resolve_scope`), with no filters yet."""
        return resolve_scope(self.settings, repository, index, branch, source)

    def scope_of(self, index: catalog.IndexSummary, filters: Mapping[str, list[str]] | None = None) -> Scope:
        """The scope of an index `indexes` listed, under the caller's filters."""
        return Scope(index.repository, index.branch, index.index, dict(filters or {}), index.source)

    def backend_for(self, index_source: str) -> StoreBackend:
        """The backend serving an index from `index_source` ("" the configured one, "local" the
        data folder, "shared" the Milvus at milvus.uri); one of each per process."""
        if not serves_locally(self.settings, index_source) or self.settings.retrieval.backend != "milvus":
            return self.runtime.backend  # the configured backend serves it
        if self._local is None:
            from ragstream.retrieval.local_backend import LocalBackend

            self._local = LocalBackend(self.settings, self.runtime.backend.embedder)
        return self._local

    def search(self, scope: Scope, mode: str, query: str, top_k: int,
               rerank: str = "none") -> tuple[SearchRequest, SearchResponse, dict[str, str]]:
        """`search` through this process's backend, whose indexes stay loaded between searches."""
        return search(self.settings, scope, mode, query, top_k, rerank, self.backend_for(scope.index_source))

    def scope_runtime(self, index_source: str) -> Runtime:
        """The runtime with the backend that serves the scope's index."""
        return replace(self.runtime, backend=self.backend_for(index_source))

    def turn_runtime(self, on_token: Callable[[str], None] | None = None,
                     on_progress: ProgressSink | None = None, index_source: str = "") -> Runtime:
        """The runtime for one question: its model calls share `llm.turn_seconds`."""
        llm = self.runtime.llm.for_turn(on_progress) if self.runtime.llm is not None else None
        return replace(self.scope_runtime(index_source), llm=llm, on_token=on_token)

    def check_question(self, question: str, pipeline: Pipeline) -> Question:
        """The question, checked once per turn: a QuestionError for an empty question or one over
        `max_question_chars` (the pipeline's, else the config's). What it returns is not checked
        again by `run` or a `ManualSession` under the same limit."""
        return check_question(question, pipeline.settings.get("max_question_chars",
                                                              self.settings.limits.max_question_chars))

    def new_state(self, question: str, scope: Scope, is_english: bool = True) -> SuperPrompt:
        """A fresh state for `question`, recording what its answer is made from (`record_basis`:
        a pass answers from the index as it is when it starts); a secret pasted into it is
        redacted before any stage, prompt, trace or history sees it."""
        question = redact_text(str(question))
        sp = SuperPrompt(question_raw=question, is_english=is_english, retrieval_query=question,
                         repository=scope.repository, branch=scope.branch, active_index=scope.active_index,
                         index_source=scope.index_source,
                         retrieval_filters=dict(scope.retrieval_filters))
        self.record_basis(sp)
        return sp

    def run(self, question: str, scope: Scope, pipeline: Pipeline, is_english: bool = True, *,
            session_id: str | None = None, on_token: Callable[[str], None] | None = None,
            on_progress: ProgressSink | None = None) -> tuple[SuperPrompt, list[StepResult]]:
        """Auto mode: the question through every step of the pipeline. With a `session_id` it is
        a turn of that conversation (its history is loaded, the turn persisted); `on_token`
        receives a model's answer as it streams; `on_progress` hears what each model call is
        doing (waiting, retrying, failed). The model calls share one turn's deadline. A turn
        that fails is logged with its traceback and kept in the conversation as failed (never as
        an answer), then the error is raised again."""
        question = self.check_question(question, pipeline)
        engine = Engine(pipeline, self.turn_runtime(on_token, on_progress, scope.index_source))
        sp = self.new_state(question, scope, is_english)
        if session_id:
            sp.extras = {**sp.extras, "session": {"id": session_id, "pipeline": pipeline.name}}
        engine.start(sp)
        try:
            return sp, engine.run(sp)
        except Exception as exc:
            LOG.exception("the turn %r failed at step %s", sp.question_raw[:80], sp.stage)
            if session_id:
                self._keep_failure(session_id, sp, scope, pipeline.name, exc)
            raise

    def record_basis(self, sp: SuperPrompt) -> None:
        """Record in the state what its answer is made from (`answer_sources.Basis`: the index's
        generation, commit and file table), for `changes_since`. A shared index's files are not
        walked here: nothing is recorded for it."""
        if not serves_locally(self.settings, sp.index_source):
            return
        data_dir = Path(self.settings.index.data_dir).expanduser().resolve()
        location = store.IndexLocation(data_dir, sp.repository, sp.active_index or sp.branch)
        basis = record_basis(data_dir, location)
        if basis is not None:
            sp.extras = {**sp.extras, BASIS: asdict(basis)}

    def changes_since(self, sp: SuperPrompt) -> SourceChanges:
        """Which files of the index's source folder were added, modified or deleted since the
        state's answer was made (`changes_since_basis` under the state's own filters): what
        the workbench says beside an answer."""
        basis = Basis.of(sp.extras)
        if basis is None:
            return SourceChanges(unknown="the answer records no index generation (a shared index, or an "
                                 "answer made before answers recorded it)")
        return self.changes_since_basis(basis, sp.retrieval_filters)

    def changes_since_basis(self, basis: Basis, filters: Mapping[str, list[str]]) -> SourceChanges:
        """Which files changed since an answer made from `basis` (its `extras["basis"]`; a
        client may hold its digest alone), the paths `filters` hide left out, and which of
        them the live index already holds (a watching builder refreshes it)."""
        def watched(source: Path) -> object | None:
            return next((watch.bursts for watch in list(self._watches.values())
                         if watch.running and watch.watcher_up and watch.path == source), None)

        return self._sources.changes_since(basis, RetrievalFilters.parse(filters), watched)

    def _keep_failure(self, session_id: str, sp: SuperPrompt, scope: Scope, pipeline: str, exc: Exception) -> None:
        """The failed turn in its conversation, marked failed: unless the conversation is held under
        another scope (that refusal is the failure) or the history itself failed."""
        try:
            if self.history.scope_of(session_id) not in (None, scope_key(scope)):
                return
            self.history.add_turn(session_id, question_raw=sp.question_raw, question_en=sp.question_en or sp.question_raw,
                                  answer_en="", answer="", pipeline=pipeline, index_name=sp.active_index or "",
                                  error=Failure.of(exc).to_json())
        except HistoryError:
            LOG.exception("the failed turn could not be kept in conversation %s", session_id)

    def expand_seeds(self, seeds: list[str], scope: Scope, pipeline: Pipeline) -> tuple[SuperPrompt, list[StepResult]]:
        """The pipeline's graph walk and node texts (its `expand` and `fetch_node_texts` steps)
        around `seeds`, node ids, instead of a search's hits: what a client that already knows
        the ids asks for. A seed the caller may not see is dropped as one that does not exist:
        the walk never starts from, or passes through, a hidden node."""
        steps = _graph_steps(pipeline)
        sp = self.new_state("graph around " + ", ".join(seeds), scope)
        sp.retrieval_seed_nodes = list(seeds)
        engine = Engine(pipeline, self.scope_runtime(scope.index_source))
        sp.stage = steps["expand"].id
        results = []
        while sp.stage in (steps["expand"].id, steps["fetch_node_texts"].id):
            results.append(engine.step(sp))
        return sp, results

    def relations(self, subject: str, relation: str, scope: Scope, pipeline: Pipeline) -> dict[str, Any]:
        """The graph's answer (`graph_answer_data`: items with how each edge was made, guesses
        marked, or paths for `flow`; `graph`, the note of the graph it was read from while that is
        the interim one) to `relation` of the object `subject` names: a node id, a
        name as a question writes it (`find_named`) or a bare name, under the scope's filters and the
        pipeline's `graph_guesses`. The relate stage answers "who calls X" the same way. A
        RetrievalError when the relation is unknown or nothing visible bears the name."""
        if relation not in RELATION_NAMES:
            raise RetrievalError(f"unknown relation {relation!r}; known: {', '.join(RELATION_NAMES)}",
                                 where="relation")
        backend = self.backend_for(scope.index_source)
        filters = RetrievalFilters.parse(scope.retrieval_filters)
        seen = self.scope_graph(scope)
        graph = graph_for(seen, pipeline.settings)
        subjects = [subject] if subject in graph else \
            [n.id for n in main_subjects(find_named(graph, subject)) or named_by_word(graph, subject)]
        if not subjects:
            raise RetrievalError(f"nothing in the index is named {subject!r} (or your filters hide it)",
                                 where="subject", hint="give a node id from a search, or a qualified name")

        def text_of(ids: list[str]) -> dict[str, str]:
            return backend.fetch_texts(ids, scope.repository, scope.branch, filters, scope.active_index)

        answer = relation_answer(graph, subjects, relation, text_of)
        assert answer is not None  # the subjects are in the graph
        return {**graph_answer_data(answer, graph), "graph": graph_note(seen.graph, bool(scope.retrieval_filters))}

    def scope_graph(self, scope: Scope):
        """The index graph as the scope's caller may see it (hidden nodes left out)."""
        return self.backend_for(scope.index_source).graph(scope.repository, scope.branch,
                                                          RetrievalFilters.parse(scope.retrieval_filters),
                                                          scope.active_index)

    def neighbourhood(self, node: str, scope: Scope) -> dict[str, Any]:
        """A node and its edges as the scope's caller may see them (`neighbourhood_data`), with
        the note of the graph they were read from (`graph`); a RetrievalError when no visible node
        has that id."""
        graph = self.scope_graph(scope)
        if node not in graph:
            raise RetrievalError(f"no node {node!r} in the index (or your filters hide it)", where="node",
                                 hint="node ids come from search, expand and relations results")
        return {**neighbourhood_data(graph, node), "graph": graph_note(graph.graph, bool(scope.retrieval_filters))}

    # --- conversations, as a caller under a scope may see them -----------------------------

    def conversations(self, scope: Scope) -> list[SessionInfo]:
        """The conversations bound to `scope` (or not bound yet), newest first: a conversation
        held under other filters is not even listed."""
        key = scope_key(scope)
        return [s for s in self.history.sessions() if s.scope in (None, key)]

    def conversation_turns(self, session_id: str, scope: Scope) -> list[Turn]:
        """The turns of a conversation, oldest first; HistoryError when it is bound to another
        scope (its turns were said under other filters) or does not exist."""
        bound = self.history.scope_of(session_id)
        if bound is not None and bound != scope_key(scope):
            raise HistoryError(f"conversation {session_id!r} was held under another index or other security "
                               "filters; it cannot be opened under these", where="conversation",
                               hint="choose it again under its own filters, or start a new conversation")
        return self.history.turns(session_id)

    def new_conversation(self, title: str, scope: Scope) -> str:
        """A new conversation, bound to `scope` from the start."""
        return self.history.create_session(title=title, scope=scope_key(scope))

    # --- what the workbench shows beside a run --------------------------------------------

    def indexes(self) -> list[catalog.IndexSummary]:
        """The indexes under the data folder, with counts and how many files changed since, then
        (with retrieval.backend: milvus) those published to the shared Milvus, marked shared."""
        local = catalog.list_indexes(self.settings)
        if self.settings.retrieval.backend != "milvus":
            return local
        from ragstream.retrieval.milvus_backend import MilvusBackend

        backend = self.runtime.backend
        assert isinstance(backend, MilvusBackend)  # what make_backend gives for retrieval.backend: milvus
        return local + catalog.list_shared_indexes(backend.client, self.settings.milvus.uri)

    def pipelines(self) -> list[catalog.PipelineSummary]:
        """Every pipeline in pipelines/, with what it extends and its key settings (or its error)."""
        summaries = []
        for name in catalog.pipeline_names():
            try:
                summaries.append(catalog.summarise_pipeline(name, self.pipeline(name)))
            except RagstreamError as exc:
                summaries.append(catalog.summarise_pipeline(name, None, str(exc)))
        return summaries

    def build(self, path: str | Path, name: str | None = None, rebuild: bool = False) -> catalog.BuildJob:
        """Start an index build in a child process (or return the one running for that target).
        A watching builder of that repository stops first (two builders of one index would meet
        at its lock); `follow` starts it again once the build has ended."""
        key = (str(Path(path).expanduser().resolve()), name)
        job = self._builds.get(key)
        with self._following:
            watching = self._take([target for target in self._watches if str(target[0]) == key[0]])
        self._stop(watching)
        if job is None or not job.running:
            job = catalog.BuildJob(Path(key[0]), name, self.settings, rebuild, on_askable=self._preload,
                                   on_semantic=self._preload_embedder)
            self._builds[key] = job.begin()
        return job

    def refresh_default_index(self, started: tuple[int, Path] | None = None) -> catalog.BuildJob | None:
        """Build the bundled default index (ragstream's own source) in the background when
        `catalog.build_wanted` says so; None when it is up to date. `started`: the launcher
        already started its build (pid, events file), which is followed instead."""
        source, _, name = catalog.default_index()
        if started is not None:
            pid, events = started
            job = catalog.BuildJob(source, name, self.settings, on_askable=self._preload,
                                  on_semantic=self._preload_embedder)
            job.follow(events, child_exit_code(pid))
            self._builds[(str(source), name)] = job
            return job
        return self.refresh(source, name)

    def refresh(self, path: str | Path, name: str | None = None) -> catalog.BuildJob | None:
        """Re-index the repository at `path` into its index `name` in the background when
        `catalog.build_wanted` says so (files changed, a stopped fill, an unusable index): changed
        files only, from scratch only when the index there cannot be used. None when it is up to
        date and complete or being filled."""
        rebuild = catalog.build_wanted(self.settings, Path(path), name)
        return None if rebuild is None else self.build(path, name, rebuild=rebuild)

    def _preload(self, job: catalog.BuildJob) -> None:
        """Load an index this process is building into its backend -- chunks, BM25, graph -- as
        soon as it can be asked, while the page opens the question box: the first question then
        does not wait for them. Whatever fails here is left to that question, which says it."""
        try:
            info = repository_info(job.path)
            location = locate(info, self.settings, job.name)
            branch = store.load_index(location).manifest["branch"]
            backend = self.backend_for("local")
            backend.search(SearchRequest("bm25", "preload", 1, info.repository, branch,
                                         active_index=location.active_index))
            backend.graph(info.repository, branch, None, location.active_index)
        except Exception:  # noqa: BLE001 - best-effort, on the build's follower thread, which must go on
            pass

    def _preload_embedder(self, job: catalog.BuildJob) -> None:
        """Load the model that embeds questions once every chunk has a vector: not at keyword-ready
        (no question embeds yet) nor at the fill's first batch, which comes while the first
        question is asked: the load (up to seconds of CPU while a build runs) would slow that
        answer. A semantic search before then loads it itself."""
        try:
            self.runtime.backend.embedder.encode(["preload"])
        except Exception:  # noqa: BLE001 - best-effort: the first semantic search loads it and says what failed
            pass

    def builds(self) -> list[catalog.BuildJob]:
        """Builds started in this process, newest first."""
        return sorted(self._builds.values(), key=lambda job: -job.started)

    def follow(self, index: catalog.IndexSummary | None, session: str = "") -> catalog.WatchJob | None:
        """The watching builder (`catalog.WatchJob`) of `index` for the workbench session `session`
        (None: it follows none). One per followed index, shared by the sessions that follow it, and
        stopped once none does (a session unseen for FOLLOW_LEASE_SECONDS counts as gone): one
        session's choice never stops another's watcher. The one running is returned as it is
        (ended with an error included, so a failing child is not restarted on every page run).
        Not started while a build of that index runs (the next call starts it) nor for an index
        that cannot be followed (`catalog.watch_target`): None then."""
        target = catalog.watch_target(index)
        job = ending = None
        with self._following:
            now = time.monotonic()
            if target is None:
                self._followers.pop(session, None)
            else:
                self._followers[session] = (target, now)
            stopped = self._unfollowed(now)
            if target is not None:
                job, ending = self._watches.get(target), self._stopping.get(target)
                ending = ending if ending is not None and ending.running else None  # ended: only not yet forgotten
                if job is None and ending is None and not any(build.running and build.path.resolve() == target[0]
                                                              for build in self._builds.values()):
                    job = self._watches[target] = catalog.WatchJob(target[0], target[1], self.settings).begin()
        self._stop(stopped)  # outside the lock: a child given seconds to end holds up this session alone
        if job is None and ending is not None:  # its last follower just let it go: a new one waits for its end
            ending.wait()
            return self.follow(index, session)
        return job

    def _unfollowed(self, now: float) -> list[catalog.WatchJob]:
        """Forget the sessions unseen for FOLLOW_LEASE_SECONDS; the watchers no session follows
        any more, taken out (to be stopped). Called with `_following` held."""
        for session, (_, seen) in list(self._followers.items()):
            if seen < now - FOLLOW_LEASE_SECONDS:
                del self._followers[session]
        wanted = {target for target, _ in self._followers.values()}
        return self._take([target for target in self._watches if target not in wanted])

    def _take(self, targets: list[tuple[Path, str]]) -> list[catalog.WatchJob]:
        """Take the watchers of `targets` out, to be stopped: until their child has ended, none
        is started for them (two builders of one index would meet at its lock). With `_following` held."""
        taken = {target: self._watches.pop(target) for target in targets}
        self._stopping.update(taken)
        return list(taken.values())

    def _stop(self, jobs: list[catalog.WatchJob]) -> None:
        """Stop the watchers `_take` took out (without `_following` held: a child is given seconds)."""
        for job in jobs:
            job.stop()
            with self._following:
                self._stopping = {target: kept for target, kept in self._stopping.items() if kept is not job}

    def following(self, session: str = "") -> catalog.WatchJob | None:
        """The watching builder `follow` keeps for `session`, if any (the session is seen now)."""
        with self._following:
            followed = self._followers.get(session)
            if followed is None:
                return None
            self._followers[session] = (followed[0], time.monotonic())
            return self._watches.get(followed[0])

    def watch_paths(self, job: catalog.WatchJob, index: catalog.IndexSummary | None,
                    filters: Mapping[str, list[str]]) -> tuple[tuple[str, ...], int]:
        """What a session may be told of the last burst `job` saw: (the paths it may name, how
        many others to count). Named only when `job` follows the session's own `index`, and only
        the files that index holds or its source walk finds (never an unindexed `.env`) that pass
        the session's `filters` (`answer_sources.path_visibility`, as the answers' notice):
        a hidden path is neither named nor counted. A watcher of another index: a count alone.
        Filters that cannot be read name nothing (the page says what is wrong with them)."""
        if index is None or catalog.watch_target(index) != (job.path, job.name):
            return (), len(job.seen)
        try:
            visible = path_visibility(self.settings, RetrievalFilters.parse(filters))
        except RetrievalError:
            return (), 0
        data_dir = Path(self.settings.index.data_dir).expanduser().resolve()
        location = store.IndexLocation(data_dir, index.repository, index.index)
        try:
            known = self._sources.known_paths(location, job.path, job.bursts)
        except (RagstreamError, OSError, ValueError):
            return (), len(job.seen)
        return tuple(path for path in job.seen if path in known and visible(path)), 0

    def graph(self, sp: SuperPrompt):
        """The index graph as the state's caller may see it (hidden nodes left out)."""
        return self.backend_for(sp.index_source).graph(sp.repository, sp.branch, sp.retrieval_filters,
                                                       sp.active_index)

    def index_generation(self, sp: SuperPrompt) -> str | None:
        """The live generation of the state's index: what a drawing of its graph depends on."""
        return self.backend_for(sp.index_source).generation(sp.repository, sp.branch, sp.active_index)

    def graph_html(self, sp: SuperPrompt, height: str = "640px") -> str:
        """The offline pyvis view of the state's neighbourhood."""
        from ragstream.graph.view import graph_html

        return graph_html(self.graph(sp), sp, height)

    def graph_view(self, sp: SuperPrompt):
        """The neighbourhood as the graph panel draws it: alike neighbours grouped, each
        member listed (`graph/grouping.py`)."""
        from ragstream.graph.view import view_of

        return view_of(self.graph(sp), sp)

    def locations(self, sp: SuperPrompt, ids: list[str]) -> dict[str, str]:
        """`path:start-end` of chunk ids the state's caller may see."""
        return self.backend_for(sp.index_source).locations(ids, sp.repository, sp.branch, sp.retrieval_filters,
                                                           sp.active_index)


def _graph_steps(pipeline: Pipeline) -> dict[str, Step]:
    """The pipeline's steps that walk the graph and fetch its texts, by action."""
    steps = {step.action: step for step in pipeline.steps.values()}
    missing = [action for action in ("expand", "fetch_node_texts") if action not in steps]
    if missing:
        raise PipelineError(f"has no step running {missing}: it cannot walk the graph", where=pipeline.name)
    return steps


def with_text_budget(pipeline: Pipeline, budget_tokens: int | None) -> Pipeline:
    """The pipeline with its node texts held to `budget_tokens` (its fetch step's parameter),
    instead of 70% of `max_context_tokens`; unchanged for None."""
    if budget_tokens is None:
        return pipeline
    texts = _graph_steps(pipeline)["fetch_node_texts"]
    params = {k: v for k, v in texts.params.items() if k != "max_chars"}
    return replace(pipeline, steps={**pipeline.steps, texts.id: replace(
        texts, params={**params, "budget_tokens": budget_tokens})})


def expanded_nodes(sp: SuperPrompt) -> list[dict[str, Any]]:
    """The graph walk's nodes, seeds first, each with its depth, parent and what became of its
    text (its tokens, "cut by the budget" or "no text"): what `expand` shows."""
    debug, accounting = sp.graph_debug, sp.budget.get("node_texts", {})
    kept = {t["id"]: t for t in sp.node_texts}
    cut = {c["id"] for c in accounting.get("cut", [])}
    return [{"id": node, "depth": debug["depth"][node], "seed": node in sp.graph_seed_nodes,
             "parent": debug.get("parent", {}).get(node),
             "tokens": kept[node]["tokens"] if node in kept else None,
             "status": "text" if node in kept else "cut by the budget" if node in cut else "no text"}
            for node in sp.graph_expanded_nodes]


# What a prompt holds besides its budgets (system text, question, format rules, headings).
PROMPT_OVERHEAD_TOKENS = 800
CHARS_PER_TOKEN = 3  # a cautious average for code
BUDGETS = ("max_context_tokens", "max_history_tokens", "max_attachment_tokens")


def fit_local_window(settings: Mapping[str, Any], llm: LLMSettings) -> dict[str, int]:
    """Pipeline overrides that make a local model's prompts fit its context window: the prompt
    budgets scaled down together, and the gate's candidate texts cut so that all of them fit.
    Empty when nothing needs lowering (or the model is not local: a server knows its own)."""
    if llm.provider != "local":
        return {}
    room = llm.local_ctx_size - llm.max_reply_tokens - PROMPT_OVERHEAD_TOKENS
    total = sum(settings[key] for key in BUDGETS)
    lowered = {key: max(1, settings[key] * room // total) for key in BUDGETS} if total > room else {}
    gate_chars = room * CHARS_PER_TOKEN // settings["N2_RERANK_TOP_K"]
    if gate_chars < settings["gate_candidate_chars"]:
        lowered["gate_candidate_chars"] = max(1, gate_chars)
    return lowered


@dataclass(frozen=True)
class Click:
    """What one button press did: the step's result, or the error to show instead."""

    result: StepResult | None = None
    error: RagstreamError | None = None


class ManualSession:
    """Manual mode: one step per click, in pipeline order; re-running an earlier step first
    clears every field that it and the steps after it wrote."""

    def __init__(self, controller: Controller, pipeline: Pipeline, question: str, scope: Scope,
                 is_english: bool = True):
        question = controller.check_question(question, pipeline)
        self._controller = controller
        self.on_progress: ProgressSink | None = None  # what each click's model calls report to
        self.engine = Engine(pipeline, controller.scope_runtime(scope.index_source))
        state = controller.new_state(question, scope, is_english)
        self.state = self.engine.start(state)
        self._ran: list[str] = []  # this pass's steps, in order

    @property
    def ran(self) -> list[str]:
        """The steps of this pass, in the order they ran."""
        return list(self._ran)

    @property
    def enabled(self) -> list[str]:
        """The steps a person may click now: those already run, and the next one."""
        return self._ran + ([self.state.stage] if self.state.stage else [])

    def stage_of(self, step_id: str) -> str:
        return REGISTRY[self.engine.pipeline.steps[step_id].action].stage

    @property
    def enabled_stages(self) -> list[str]:
        """The stage buttons a person may press now, in stage order."""
        enabled = {self.stage_of(step) for step in self.enabled}
        return [stage for stage in STAGES if stage in enabled]

    def click_stage(self, stage: str) -> list[Click]:
        """One stage button: the stage's next step when the pipeline is in it (a follow-up loop
        comes back to retrieve), else its first step run (a re-run); then its further steps while
        the pipeline stays in the stage (expand is two steps: the walk, then the texts)."""
        upcoming = [self.state.stage] if self.state.stage else []
        first = next((step for step in upcoming + self.enabled if self.stage_of(step) == stage), None)
        if first is None:
            error = PipelineError(f"stage {stage!r} is not available now; enabled: {self.enabled_stages}",
                                  where=self.engine.pipeline.name)
            return [Click(error=error)]
        clicks = [self.click(first)]
        while (clicks[-1].result and self.state.stage and self.stage_of(self.state.stage) == stage
               and self.state.stage not in [c.result.step for c in clicks if c.result is not None]):
            clicks.append(self.click(self.state.stage))
        return clicks

    def click(self, step_id: str) -> Click:
        try:
            if step_id not in self.enabled:
                raise PipelineError(f"step {step_id!r} is not available now; enabled: {self.enabled}",
                                    where=self.engine.pipeline.name)
            if step_id in self._ran and step_id != self.state.stage:  # the next step of a loop is no re-run
                self._rewind(step_id)
            # a click is a turn, served by the backend of the scope's index as auto mode is
            self.engine.runtime = self._controller.turn_runtime(on_progress=self.on_progress,
                                                                index_source=self.state.index_source)
            result = self.engine.step(self.state)
            self._ran.append(result.step)
            return Click(result=result)
        except RagstreamError as exc:
            return Click(error=exc)

    def _rewind(self, step_id: str) -> None:
        undone = self._ran[self._ran.index(step_id):]
        steps = self.engine.pipeline.steps
        for write in sorted({w for s in undone for w in self.engine.actions[steps[s].action].writes}):
            name, _, key = write.partition(".")
            if key:  # one key of a shared dict field: the other steps' keys stay
                setattr(self.state, name, {k: v for k, v in getattr(self.state, name).items() if k != key})
            else:
                setattr(self.state, name, field_default(name))
        self._ran = self._ran[: self._ran.index(step_id)]
        self.state.stage = step_id

