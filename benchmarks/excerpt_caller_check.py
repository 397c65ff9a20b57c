"""Issue 38's scripted check, over real indexes (each built keyword-ready in a scratch data folder):

(a) Excerpts. Questions made from the index's own symbols (seeded) are asked in deterministic
    mode; every quoted line the answer path shows -- the answer (what `ragstream ask` prints),
    the evidence blocks of the prompt, the fetched texts the panels show, the texts of the search
    hits -- is compared with the file's line at its number, and wherever two quoted lines are
    not adjacent in the file a gap marker must stand between them.
(b) Callers. For functions and methods sampled (seeded) among those with callers, every CALLS
    edge into them is checked against the code: the caller's body (its line span) must mention
    the callee call-like -- its name followed by `(` (a constructor: its class's), or passed as
    a method group / function value; a message dispatch names the message type and the send.

    .venv/bin/python benchmarks/excerpt_caller_check.py PATH [PATH ...] [--data-dir DIR]
        [--questions 20] [--sample 20] [--seed 38] [--show 5]
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ragstream.config import load_settings
from ragstream.controller import Controller
from ragstream.excerpt import GAP, numbered, quoted
from ragstream.index.build import build_index
from ragstream.redact import redact

QUOTED_LINE = re.compile(r"^\s*(\d+) │(?: (.*))?$")
GAP_ROW = re.compile(rf"^\s*{GAP}( .*)?$")  # skipped lines (an elided member's: with its summary)
UNNUMBERED = re.compile(r"^\s*│")  # a line whose number is not known (between elided members)
BLOCK_HEAD = re.compile(r"^\s*- \*\*(?P<id>[^*]+)\*\* — `(?P<path>[^`]+?):\d+-\d+`")
ELISION = re.compile(r" \.\.\.  \[[^\]]*: own chunk\]$")
TYPE_ARGUMENTS = r"(<(?:[^<>()]|<(?:[^<>()]|<[^<>()]*>)*>)*>)"  # C# generics, nested twice
ASKED_KINDS = ("FUNCTION", "METHOD", "CLASS", "TYPE", "TABLE", "PROCEDURE", "VIEW")
TEMPLATES = ("What does {name} do?", "Who calls {name}?", "Where is {name} defined?", "How is {name} used?",
             "What does {name} call?")
TABLE_TEMPLATES = ("Which code writes {name}?", "What reads {name}?", "Where is {name} defined?")


@dataclass
class Figures:
    questions: int = 0
    blocks: Counter = field(default_factory=Counter)  # quoted texts checked, by where they show
    lines: int = 0
    misquoted: list[str] = field(default_factory=list)
    missing_gaps: list[str] = field(default_factory=list)
    unnumbered: Counter = field(default_factory=Counter)  # by where they show
    elided: int = 0
    sampled: int = 0
    edges: int = 0
    callers: Counter = field(default_factory=Counter)  # how each caller edge was confirmed
    false_callers: list[str] = field(default_factory=list)


class Files:
    """The repository's files as read and as the index holds them (secrets redacted)."""

    def __init__(self, root: Path):
        self.root, self._raw, self._redacted = root, {}, {}

    def line(self, path: str, number: int, language: str = "text") -> tuple[str | None, str | None]:
        if path not in self._raw:
            file = self.root / path
            # decoded as the walk decodes it (a byte-order mark is no text)
            self._raw[path] = file.read_bytes().decode("utf-8-sig", errors="replace").split("\n") \
                if file.is_file() else []
        raw = self._raw[path]
        if not 1 <= number <= len(raw):
            return None, None
        if (path, language) not in self._redacted:
            self._redacted[path, language] = redact("\n".join(raw), language)[0].split("\n")
        return raw[number - 1].rstrip(), self._redacted[path, language][number - 1].rstrip()

    def span(self, path: str, start: int, end: int) -> str:
        self.line(path, start)
        return "\n".join(self._raw.get(path, [])[start - 1:end])


def check_quoted(text: str, where: str, files: Files, figures: Figures,
                 default_path: str | None = None, languages: dict[str, str] | None = None) -> None:
    """Every `N │ line` of `text` against the file; a gap marker wherever numbers jump. The file is
    the one named by the block head above the line (`- **id** — `path:a-b``), else `default_path`."""
    path, previous, gap = default_path, None, False
    for line in text.split("\n"):
        head = BLOCK_HEAD.match(line)
        if head:
            path, previous, gap = head["path"], None, False
            figures.blocks[where] += 1
            continue
        if line.strip().startswith("```"):
            previous, gap = None, False
            continue
        if GAP_ROW.match(line):
            gap = True
            figures.elided += bool(ELISION.search(line))
            continue
        if UNNUMBERED.match(line):
            figures.unnumbered[where] += 1
            previous = None
            continue
        match = QUOTED_LINE.match(line)
        if not match or path is None:
            continue
        number, quoted_text = int(match[1]), (match[2] or "").rstrip()
        figures.lines += 1
        if previous is not None and number != previous + 1 and not gap:
            figures.missing_gaps.append(f"{where}: {path}:{previous} -> {number} with no {GAP} between")
        raw, clean = files.line(path, number, (languages or {}).get(path, "text"))
        if quoted_text not in (raw, clean):
            figures.misquoted.append(f"{where}: {path}:{number} quoted {quoted_text!r}, the file has {raw!r}")
        previous, gap = number, False


def questions_for(graph, count: int, rng: random.Random) -> list[str]:
    names = sorted({(data["name"].rsplit(".", 1)[-1], data.get("kind")) for node, data in graph.nodes(data=True)
                    if data.get("kind") in ASKED_KINDS and data.get("path") and data.get("name")
                    and not node.startswith("ext:")})
    picked = rng.sample(names, min(count, len(names)))
    return [(TABLE_TEMPLATES if kind == "TABLE" else TEMPLATES)[i % (3 if kind == "TABLE" else 5)].format(name=name)
            for i, (name, kind) in enumerate(picked)]


def check_excerpts(controller: Controller, scope, files: Files, figures: Figures, count: int, rng) -> None:
    pipeline = controller.pipeline("base")
    graph = controller.scope_graph(scope)
    languages = {d["path"]: d.get("language", "text") for _, d in graph.nodes(data=True) if d.get("path")}
    for question in questions_for(graph, count, rng):
        figures.questions += 1
        sp, _ = controller.run(question, scope, pipeline)
        check_quoted(sp.answer, "answer", files, figures, languages=languages)
        check_quoted(sp.prompt_ready, "prompt", files, figures, languages=languages)
        spans = controller.locations(sp, [t["id"] for t in sp.node_texts])
        for item in sp.node_texts:  # the fetch panel and the graph panel's focus quote these
            path = spans.get(item["id"], "?").rsplit(":", 1)[0]
            check_quoted(quoted(item["text"], item.get("lines")), "panel", files, figures, path, languages)
            figures.blocks["panel"] += 1
        _, response, where = controller.search(scope, "hybrid", question, 10)
        backend = controller.backend_for(scope.index_source)
        for chunk in backend.fetch_chunks([h.id for h in response.hits], scope.repository, scope.branch,
                                          scope.retrieval_filters, scope.active_index):
            span = where.get(chunk.id, f"{chunk.path}:{chunk.start_line}-{chunk.end_line}")
            check_quoted(quoted(chunk.text, numbered(chunk.text, span)), "search hit", files, figures,
                         chunk.path, languages)
            figures.blocks["search hit"] += 1


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].split("(", 1)[0]


def call_like(body: str, file_text: str, repo_text: str, graph, callee: str, data: dict) -> str | None:
    """How the caller's body calls the callee, or None when it does not mention it call-like."""
    node = graph.nodes[callee]
    name = _short(node.get("name", callee))
    owner = _short(graph.nodes[node["parent"]]["name"]) if node.get("parent") in graph else ""
    if data.get("via") == "message":
        message = _short(data.get("message", "").split(":", 1)[-1].split("|", 1)[0])
        sent = [m[1] for m in re.finditer(rf"\b{re.escape(data.get('member', 'Send'))}\w*\s*(?:<[^>]*>)?\s*\("
                                          r"\s*(?:new\s+)?([\w.]+)", body)]
        # the message built in the call, or a value (a local, a property) declared of its type
        typed = any(re.search(rf"\b{re.escape(message)}\??\s+{re.escape(arg.rsplit('.', 1)[-1])}\b", file_text)
                    or arg.rsplit(".", 1)[-1] == message for arg in sent)
        return "message sent" if typed or (sent and re.search(rf"\bnew\s+([\w.]+\.)?{re.escape(message)}\b", body)) \
            else None
    if name in ("__init__", owner) or name.startswith("<init>"):  # a constructor: its class called
        if re.search(rf"(\bnew\s+([\w.]+\.)?{re.escape(owner)}\s*(<[^>]*>)?\s*[({{]|\b{re.escape(owner)}\s*\(|"
                     r"\bsuper\(\)\.__init__\s*\(|\bbase\s*\(|\bthis\s*\()", body):
            return "constructor"
    if re.search(rf"(?<![\w$]){re.escape(name)}\s*{TYPE_ARGUMENTS}?\s*\(", body):
        return "called"
    if re.search(rf"(?<![\w$]){re.escape(name)}(?!\w)\s*[,)\]}};]|[=(,]\s*(\w+\.)*{re.escape(name)}(?!\w)", body):
        return "passed as a value"
    if re.search(rf"\.{re.escape(name)}(?!\w)", body):
        return "attribute (property)"
    if re.search(rf"^\s*@([\w.]+\.)?{re.escape(name)}\b", body, re.M):
        return "decorator applied"
    aliases = re.findall(rf"\b{re.escape(name)}\s+as\s+(\w+)", body)
    if any(re.search(rf"(?<![\w.]){re.escape(alias)}\s*\(", body) for alias in aliases):
        return "called by its import alias"
    # a call at the edge's line of a value that holds the callee: an instance (`__call__`), a
    # function its file names as a value elsewhere (a table of finders iterated and called), or
    # one passed in (a callback parameter) that the repository passes somewhere as a value
    at = body_line(file_text, data.get("line"))
    if at is not None and re.search(r"[\w\])]\s*\(", at):
        as_value = re.compile(rf"(?<![\w$]){re.escape(name)}(?!\w)\s*[,)\]}}]|=\s*([\w.]+\.)?{re.escape(name)}\s*[,)\n]")
        if name == "__call__":
            return "instance called"
        if as_value.search(file_text):
            return "called through a value its file holds"
        if as_value.search(repo_text):
            return "called through a value passed in"
    return None


def body_line(file_text: str, line: int | None) -> str | None:
    lines = file_text.split("\n")
    return lines[line - 1] if line and 1 <= line <= len(lines) else None


def check_callers(graph, files: Files, figures: Figures, sample: int, rng: random.Random) -> None:
    callees = sorted(n for n, d in graph.nodes(data=True) if d.get("kind") in ("FUNCTION", "METHOD") and d.get("path")
                     and any(k == "CALLS" for _, _, k in graph.in_edges(n, keys=True)))
    picked = rng.sample(callees, min(sample, len(callees)))
    figures.sampled += len(picked)
    repo_text = "\n".join(files.span(p, 1, 10**9) for p in sorted({d["path"] for _, d in graph.nodes(data=True)
                                                                   if d.get("path")}))
    for callee in picked:
        for caller, _, kind, data in graph.in_edges(callee, keys=True, data=True):
            if kind != "CALLS":
                continue
            figures.edges += 1
            info = graph.nodes[caller]
            body = files.span(info["path"], info["start_line"], info["end_line"]) if info.get("path") else ""
            how = call_like(body, files.span(info.get("path", ""), 1, 10**9), repo_text, graph, callee, data)
            figures.callers[how or "no call-like mention"] += 1
            if how is None:
                figures.false_callers.append(f"{caller} -> {callee} ({data.get('resolution')}"
                                             f"{', via ' + str(data['via']) if data.get('via') else ''}"
                                             f"{', guess' if data.get('guess') else ''}, line {data.get('line')})")


def report(name: str, figures: Figures, show: int) -> None:
    print(f"== {name}")
    blocks = ", ".join(f"{k} {v}" for k, v in sorted(figures.blocks.items()))
    print(f"excerpts: {figures.questions} questions; quoted texts checked: {blocks}; {figures.lines} numbered lines "
          f"(besides: {figures.elided} elided members' summaries and lines of unknown number "
          f"({', '.join(f'{k} {v}' for k, v in sorted(figures.unnumbered.items())) or 'none'})); misquoted lines {len(figures.misquoted)}; "
          f"missing gap markers {len(figures.missing_gaps)}")
    for line in figures.misquoted[:show] + figures.missing_gaps[:show]:
        print("   ", line)
    how = ", ".join(f"{k} {v}" for k, v in figures.callers.most_common())
    print(f"callers: {figures.sampled} functions/methods sampled, {figures.edges} CALLS edges into them: {how}; "
          f"false callers {len(figures.false_callers)}")
    for line in figures.false_callers[:show]:
        print("    not call-like:", line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="+", type=Path, help="repositories to index and check")
    parser.add_argument("--data-dir", type=Path, help="where the indexes go (default: a scratch folder)")
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--show", type=int, default=5, help="examples listed of each kind of failure")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="excerpt-check-"))
    settings = load_settings(None, {"index": {"data_dir": str(data_dir)}})
    failures = 0
    with Controller(settings) as controller:
        for path in args.paths:
            built = build_index(path, settings, fill=False)  # keyword-ready: graph, chunks, BM25
            scope = controller.scope(built.location.repository)
            files, figures = Files(path.resolve()), Figures()
            check_excerpts(controller, scope, files, figures, args.questions, random.Random(args.seed))
            check_callers(controller.scope_graph(scope), files, figures, args.sample, random.Random(args.seed))
            report(f"{built.location.repository} ({path})", figures, args.show)
            failures += len(figures.misquoted) + len(figures.missing_gaps) + len(figures.false_callers)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
