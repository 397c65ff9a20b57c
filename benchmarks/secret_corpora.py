"""Secret detection on corpora nobody on this team wrote: the labelled test data that secret
scanners publish in their own repositories, read from bare git mirrors at run time (nothing of
theirs is copied into ragstream).

    python benchmarks/secret_corpora.py --gitleaks MIRROR --detect-secrets MIRROR --credsweeper MIRROR

MIRROR is a bare clone (`git --git-dir=MIRROR show HEAD:path` must work). Corpora:
- gitleaks: the true / false positive examples of each rule in `cmd/generate/config/rules/*.go`
  (`tps`, `fps`), evaluated from their Go source: string literals, `+`, `GenerateSampleSecrets`
  (its templates read from `utils/generate.go`) and values generated from their regexes
  (`secrets.NewSecret`, seeded). Items using anything else are left out and counted. A vendor
  rule's `fps` are negatives for that rule only (often a random value under a `Token` name), so
  false positives are reported on `generic.go`'s `fps` (texts that are no secret at all) and on
  all `fps` apart.
- detect-secrets: each plugin test's `pytest.mark.parametrize` cases (line, should flag / the
  expected secret), evaluated by running the test module's top level (needs pytest); public IP
  addresses (ip_public) are left out: not a credential.
- CredSweeper: its text samples `tests/samples/*`, one case per (file, line): a secret where
  `tests/data/output.json` (its expected findings, filters and ML on) reports one, no secret
  where only `tests/data/no_filters_no_ml.json` does (a candidate its filters or model rejected).

Each corpus favours its own tool (its cases are that tool's unit tests); the other two corpora
are the fair test for it. Recall is also given on in-scope cases: the labelled secrets less those
outside ragstream's scope (`OUT_OF_SCOPE`: no credential, or a public one) and less the corpora's
test artefacts (`ARTEFACTS`: placeholders, a label on a line holding no value, values the
vendor's format cannot produce); each class is a rule on the labelled line, printed with counts. A case is caught when the detector reports anything on it (for
CredSweeper, on its line). Detectors: ragstream's redactor, detect-secrets 1.5 (default plugins
and filters), CredSweeper (default rules, ML validator at its `medium` threshold, on onnxruntime
with the model in its wheel), and unions of them.
"""
from __future__ import annotations

import argparse
import ast
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ragstream.redact import find_secrets

LANGUAGE = {".py": "python", ".pyi": "python", ".cs": "csharp", ".sql": "sql", ".cshtml": "razor"}


@dataclass(frozen=True)
class Case:
    corpus: str
    file: str  # a name, its extension telling detectors the file type
    text: str
    secret: bool
    line: int | None = None  # the labelled line (None: the whole text)
    group: str = ""  # a sub-corpus (gitleaks: the rule file of an `fps` item)


@dataclass
class Scores:
    found: dict[str, set[int]] = field(default_factory=dict)  # file -> flagged lines (1-based)
    seconds: float = 0.0


def git_show(mirror: Path, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(mirror), "show", f"HEAD:{path}"],
                          capture_output=True, check=True).stdout


def git_files(mirror: Path, folder: str) -> list[str]:
    out = subprocess.run(["git", "--git-dir", str(mirror), "ls-tree", "-r", "--name-only", "HEAD", folder],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


# ---- gitleaks: evaluate the Go expressions that build `tps` and `fps` --------------------------

_GO_TOKEN = re.compile(r'\s+|//[^\n]*|/\*[\s\S]*?\*/|(?P<raw>`[^`]*`)|(?P<str>"(?:[^"\\\n]|\\.)*")'
                       r"|(?P<name>[A-Za-z_][\w.]*)|(?P<punct>\.\.\.|:=|[-+(){}\[\],=])|(?P<other>.)")


def go_tokens(source: str) -> list[tuple[str, str]]:
    out = []
    for m in _GO_TOKEN.finditer(source):
        kind = m.lastgroup
        if kind:
            out.append((kind, m.group()))
    return out


class Unsupported(Exception):
    """A Go expression this evaluator does not know (a loop variable, another helper)."""


class RegexSample:
    """A random string matching a (simple) regex: what gitleaks' `secrets.NewSecret` does."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def __call__(self, pattern: str) -> str:
        import re._parser as sre
        try:
            return self._emit(sre.parse(pattern))
        except Exception as exc:
            raise Unsupported(pattern) from exc

    def _emit(self, tree) -> str:
        import re._constants as c
        out = []
        for op, arg in tree:
            if op is c.LITERAL:
                out.append(chr(arg))
            elif op is c.IN:
                out.append(self._char_in(arg))
            elif op is c.ANY:
                out.append(self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789"))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                low, high, sub = arg
                high = min(high, low + 8) if high != c.MAXREPEAT else low + 8
                out.extend(self._emit(sub) for _ in range(self.rng.randint(low, high)))
            elif op is c.SUBPATTERN:
                out.append(self._emit(arg[-1]))
            elif op is c.BRANCH:
                out.append(self._emit(self.rng.choice(arg[1])))
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                raise Unsupported(str(op))
        return "".join(out)

    def _char_in(self, items) -> str:
        import re._constants as c
        chars: list[str] = []
        for op, arg in items:
            if op is c.LITERAL:
                chars.append(chr(arg))
            elif op is c.RANGE:
                chars.extend(chr(x) for x in range(arg[0], arg[1] + 1))
            elif op is c.CATEGORY:
                chars.extend({c.CATEGORY_DIGIT: "0123456789",
                              c.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
                              c.CATEGORY_SPACE: " "}.get(arg, "x"))
            elif op is c.NEGATE:
                raise Unsupported("negated class")
        return self.rng.choice(chars)


class GoEvaluator:
    """Values of the expressions gitleaks' rule tests build their examples with."""

    SIZES = {"utils.Numeric": "[0-9]{%s}", "utils.Hex": "[a-f0-9]{%s}", "utils.AlphaNumeric": "[a-z0-9]{%s}",
             "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}", "utils.AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
             "utils.AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}"}

    def __init__(self, templates: list[str], seed: int = 37):
        self.templates = templates
        self.sample = RegexSample(seed)
        self.consts: dict[str, str] = {}

    def items(self, toks: list[tuple[str, str]], at: int, stop: str) -> tuple[list[list[str] | None], int]:
        """Comma-separated items up to `stop`: each a list of strings (a spread gives several),
        or None when it cannot be evaluated."""
        out: list[list[str] | None] = []
        while toks[at][1] != stop:
            end = self._item_end(toks, at, stop)
            try:
                value, spread = self._expression(toks[at:end])
                out.append(value if spread or isinstance(value, list) else [value])
            except (Unsupported, IndexError):
                out.append(None)
            at = end + 1 if toks[end][1] == "," else end
        return out, at + 1

    @staticmethod
    def _item_end(toks: list[tuple[str, str]], at: int, stop: str) -> int:
        depth = 0
        while True:
            text = toks[at][1]
            if text == stop and depth == 0:
                return at
            if text in "({[" and toks[at][0] == "punct":
                depth += 1
            elif text in ")}]" and toks[at][0] == "punct":
                if depth == 0:
                    return at
                depth -= 1
            elif text == "," and depth == 0:
                return at
            at += 1

    @classmethod
    def closing(cls, toks: list[tuple[str, str]], at: int) -> int:
        """The index of the `)` closing the call whose arguments start at `at`."""
        while toks[at][1] != ")":
            at = cls._item_end(toks, at, ")")
            at += toks[at][1] == ","
        return at

    def _expression(self, toks: list[tuple[str, str]]):
        spread = bool(toks) and toks[-1][1] == "..."
        toks = toks[:-1] if spread else toks
        parts, at = [], 0
        while at < len(toks):
            value, at = self._term(toks, at)
            parts.append(value)
            if at < len(toks):
                if toks[at][1] != "+":
                    raise Unsupported(toks[at][1])
                at += 1
        if len(parts) == 1:
            return parts[0], spread
        if any(isinstance(p, list) for p in parts):
            raise Unsupported("a list in a sum")
        return "".join(parts), spread

    def _term(self, toks: list[tuple[str, str]], at: int):
        kind, text = toks[at]
        if kind == "raw":
            return text[1:-1], at + 1
        if kind == "str":
            return ast.literal_eval(text), at + 1
        if kind == "name" and at + 1 < len(toks) and toks[at + 1][1] == "(":
            close = self.closing(toks, at + 2)
            args = []
            inner = at + 2
            while inner < close:
                end = self._item_end(toks, inner, ")")
                args.append(self._expression(toks[inner:end])[0])
                inner = end + 1
            return self._call(text, args), close + 1
        if kind == "name" and text in self.consts:
            return self.consts[text], at + 1
        raise Unsupported(text)

    def _call(self, name: str, args: list):
        if name in self.SIZES:
            return self.SIZES[name] % args[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name in ("secrets.NewSecret", "newPlausibleSecret"):
            return self.sample(args[0])
        if name == "utils.GenerateSampleSecrets":
            ident, secret = args
            return [t.replace("{i}", ident).replace("{I}", ident.upper()).replace("{s}", secret)
                    for t in self.templates]
        if name == "utils.GenerateSampleSecret":
            return f'{args[0]}_api_token = "{args[1]}"'
        if name == "strings.Repeat":
            return args[0] * int(args[1])
        raise Unsupported(name)


def gitleaks_templates(mirror: Path) -> list[str]:
    """The sample contexts `GenerateSampleSecrets` puts a secret in (its map's values)."""
    source = git_show(mirror, "cmd/generate/config/utils/generate.go").decode()
    body = source[source.index("func GenerateSampleSecrets"):]
    body = body[:body.index("replacer :=")]
    toks = [t for t in go_tokens(body) if t[0] != "other" or t[1] != ":"]
    values = []
    for i, (kind, text) in enumerate(toks):  # "key": value  -> a string followed by a string
        if kind in ("str", "raw") and i > 0 and toks[i - 1][0] in ("str", "raw"):
            values.append(ast.literal_eval(text) if kind == "str" else text[1:-1])
    return values


def gitleaks_cases(mirror: Path) -> tuple[list[Case], int]:
    evaluator = GoEvaluator(gitleaks_templates(mirror))
    cases, skipped = [], 0
    for path in git_files(mirror, "cmd/generate/config/rules"):
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        toks = [t for t in go_tokens(git_show(mirror, path).decode()) if t[1].strip() and t[0] != "other"
                or t[0] == "other" and t[1] not in ":;"]
        evaluator.consts = {}
        for i in range(len(toks) - 2):
            name, op = toks[i][1], toks[i + 1][1]
            if toks[i][0] == "name" and op in (":=", "=") and toks[i + 2][0] in ("str", "raw"):
                try:
                    evaluator.consts[name] = evaluator._expression([toks[i + 2]])[0]
                except Unsupported:
                    pass
            if name not in ("tps", "fps") or op not in (":=", "="):
                continue
            start = i + 2
            if toks[start][1] == "[" and toks[start + 1][1] == "]":  # []string{ ... }
                items, _ = evaluator.items(toks, start + 4, "}")
            elif toks[start][1] == "append":  # append(tps, ...)
                items, _ = evaluator.items(toks, start + 4, ")")
            elif toks[start + 1][1] == "(":  # tps := utils.GenerateSampleSecrets(...)
                close = evaluator.closing(toks, start + 2)
                items, _ = evaluator.items([*toks[start:close + 1], ("punct", ";")], 0, ";")
            else:
                continue
            for values in items:
                if values is None:
                    skipped += 1
                    continue
                for text in values:
                    cases.append(Case("gitleaks", "sample.txt", text, name == "tps", group=Path(path).stem))
    return cases, skipped


# ---- detect-secrets: each plugin test's parametrized cases ---------------------------------------



def detect_secrets_cases(mirror: Path) -> list[Case]:
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "--git-dir", str(mirror), "archive", "HEAD", "tests", "testing"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        sys.path.insert(0, tmp)
        try:
            for path in sorted(Path(tmp, "tests", "plugins").glob("*_test.py")):
                if path.name in ("ip_public_test.py", "base_test.py"):
                    continue
                cases += _parametrized(path)
        finally:
            sys.path.remove(tmp)
    return cases


def _parametrized(path: Path) -> Iterator[Case]:
    source = path.read_text()
    namespace: dict = {"__name__": f"ds_{path.stem}"}
    exec(compile(source, str(path), "exec"), namespace)
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("mark.parametrize")):
            continue
        names = [n.strip() for n in ast.literal_eval(node.args[0]).split(",")]
        rows = eval(compile(ast.Expression(node.args[1]), str(path), "eval"), namespace)
        for row in rows:
            row = row if isinstance(row, tuple) else (row,)
            values = dict(zip(names, row, strict=False))
            text = values.get("line", values.get("payload", values.get("file_content")))
            if not isinstance(text, str):
                continue
            if "should_flag" in values:
                secret = bool(values["should_flag"])
            elif "expected_secret" in values:
                secret = values["expected_secret"] is not None
            elif len(names) == 1:
                secret = True  # slack, square, private keys: every case is one
            else:
                continue
            ext = values.get("file_extension") or "txt"
            yield Case("detect-secrets", f"sample.{ext}", text, secret, group=path.stem)


# ---- CredSweeper: text samples, one case per (file, line) ----------------------------------------

def credsweeper_cases(mirror: Path) -> list[Case]:
    def lines_of(report: str) -> set[tuple[str, int]]:
        found = json.loads(git_show(mirror, f"tests/data/{report}"))
        return {(Path(d["path"]).name, d["line_num"]) for f in found for d in f["line_data_list"]}

    positive, candidates = lines_of("output.json"), lines_of("no_filters_no_ml.json")
    cases = []
    for path in git_files(mirror, "tests/samples"):
        raw = git_show(mirror, path)
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        name = Path(path).name
        for line in sorted({n for f, n in positive | candidates if f == name}):
            cases.append(Case("CredSweeper", name, text, (name, line) in positive, line))
    return cases


# ---- detectors: each gives the flagged lines of each distinct text -------------------------------

def run_ragstream(texts: dict[str, tuple[str, str]]) -> Scores:
    scores, start = Scores(), time.perf_counter()
    for key, (file, text) in texts.items():
        language = LANGUAGE.get(Path(file).suffix, "text")
        spans = find_secrets(text, language)
        scores.found[key] = {n for s, e, _ in spans
                             for n in range(text.count("\n", 0, s) + 1, text.count("\n", 0, max(s, e - 1)) + 2)}
    scores.seconds = time.perf_counter() - start
    return scores


def run_detect_secrets(texts: dict[str, tuple[str, str]]) -> Scores:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    scores = Scores()
    with tempfile.TemporaryDirectory() as tmp, default_settings():
        paths = {}
        for i, (key, (file, text)) in enumerate(texts.items()):
            target = Path(tmp, str(i), file)
            target.parent.mkdir()
            target.write_text(text, encoding="utf-8")
            paths[key] = target
        start = time.perf_counter()
        for key, target in paths.items():
            collection = SecretsCollection()
            collection.scan_file(str(target))
            scores.found[key] = {s.line_number for found in collection.data.values() for s in found}
        scores.seconds = time.perf_counter() - start
    return scores


def run_credsweeper(texts: dict[str, tuple[str, str]]) -> Scores:
    import logging

    from credsweeper.app import CredSweeper
    from credsweeper.file_handler.string_content_provider import StringContentProvider

    logging.getLogger("credsweeper").setLevel(logging.ERROR)
    sweeper = CredSweeper()  # default rules and filters, ML validator at its medium threshold
    scores = Scores()
    start = time.perf_counter()
    providers = [StringContentProvider(text.split("\n"), file_path=f"{key}/{file}")
                 for key, (file, text) in texts.items()]
    sweeper.scan(providers, None)
    sweeper.post_processing(None)
    for key in texts:
        scores.found[key] = set()
    for candidate in sweeper.credential_manager.get_credentials():
        for data in candidate.line_data_list:
            scores.found[data.path.rsplit("/", 1)[0]].add(data.line_num)
    scores.seconds = time.perf_counter() - start
    return scores


DETECTORS: dict[str, Callable[[dict[str, tuple[str, str]]], Scores]] = {
    "ragstream": run_ragstream,
    "detect-secrets": run_detect_secrets,
    "credsweeper": run_credsweeper,
}


# Labelled secrets outside ragstream's scope (README "Secret redaction"): a credential grants
# access and is not published on purpose. Each class is a rule on the labelled line.
_UUID = r"(?<![A-Z]{3}-)[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
OUT_OF_SCOPE: dict[str, Callable[[Case, str], bool]] = {
    "UUID under no secret-named key": lambda c, line: bool(
        re.search(_UUID, line) and not re.search(r"(?i)key\b|token|secret|pass|pwd|auth", line)),
    "salt, nonce or IV": lambda c, line: bool(re.search(r"(?i)salt|nonce|\biv\b", line)),
    "public identifier (app or client id, account SID, org id, domain)": lambda c, line: bool(re.search(
        r"firebase(?:app|io)\.com|\.apps\.googleusercontent\.com|\b00D\w{12,15}\b(?!!)|client_id|ClientID"
        r"|\bwx[0-9a-f]{16}\b|\bAC[0-9a-f]{32}\b", line) or re.search(r"(?i)access_?id", line) and "AKIA" not in line),
    "public key (publishable by design)": lambda c, line: bool(re.search(r"\bpk_(?:test|live)_|FLWPUBK|\bpubkey-", line)),
    "URL with no signature (S3 bucket)": lambda c, line: "X-Amz-Algorithm" in line and "X-Amz-Signature" not in line,
    "encrypted value (Sealed Secrets)": lambda c, line: c.file.startswith("sealed_secrets"),
    "bare random value, no name, prefix or context (OTP seed, client secret)": lambda c, line: (
        c.file in ("otp_2fa", "dropbox_app_secret", "google_multi") and not re.search(r"GOCSPX|:", line)),
}


def _repeated_chunk(line: str) -> bool:
    """A chunk of 4-10 characters, three of them distinct at least, repeated four times."""
    return any(len(set(m.group(1))) >= 3 for m in re.finditer(r"(\w{4,10}?)\1{3,}", line))


# Labelled secrets that are test artefacts by any reading.
ARTEFACTS: dict[str, Callable[[Case, str], bool]] = {
    "placeholder or made-up value (xxxx, EXAMPLE, user:password, abcd1234, a repeated chunk)": lambda c, line: bool(
        re.search(r"(?i:x{5,})|([B-Zb-z1-9])\1{9,}|EXAMPLE|[a-z0-9]example\b|//username:password@|keep empty"
                  r"|(?i:abcdef|abcd1234|12345678|0123456789)", line)
        or _repeated_chunk(line)),
    "label on a line holding no value (kty, an opening tag, a bare name)": lambda c, line: bool(
        re.fullmatch(r'\s*(?:"kty":.*|<\w+(?:\s+[\w-]+="[^"]{0,40}")*\s*>|[a-z][A-Za-z]*_?|"type": "service_account")\s*',
                     line)),
    "value its vendor's format cannot hold (sampler artefact)": lambda c, line: bool(
        re.search(r"sq0csp-\S*[\\\]^]", line)),
}


def labelled_line(case: Case) -> str:
    return case.text.split("\n")[case.line - 1] if case.line else case.text


def scope_class(case: Case) -> tuple[str, str] | None:
    """("out of scope" | "artefact", class) of a labelled secret, or None when it is in scope."""
    line = labelled_line(case)
    for kind, classes in (("artefact", ARTEFACTS), ("out of scope", OUT_OF_SCOPE)):
        for name, rule in classes.items():
            if rule(case, line):
                return kind, name
    return None


def flagged(scores: Scores, key: str, case: Case) -> bool:
    lines = scores.found.get(key, set())
    return bool(lines) if case.line is None else case.line in lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gitleaks", type=Path)
    parser.add_argument("--detect-secrets", type=Path)
    parser.add_argument("--credsweeper", type=Path)
    parser.add_argument("--detectors", default=",".join(DETECTORS))
    parser.add_argument("--misses", default="", help="print the cases DETECTOR misses and flags wrongly")
    args = parser.parse_args()

    cases: list[Case] = []
    if args.gitleaks:
        found, skipped = gitleaks_cases(args.gitleaks)
        print(f"gitleaks: {len(found)} cases ({skipped} items not evaluated)")
        cases += found
    if args.detect_secrets:
        cases += detect_secrets_cases(args.detect_secrets)
    if args.credsweeper:
        cases += credsweeper_cases(args.credsweeper)
    key_of: dict[tuple[str, str], str] = {}
    keys = [key_of.setdefault((case.file, case.text), str(len(key_of))) for case in cases]
    texts = {key: pair for pair, key in key_of.items()}
    megabytes = sum(len(t.encode()) for _, t in texts.values()) / 1e6

    results: dict[str, Scores] = {}
    for name in args.detectors.split(","):
        try:
            results[name] = DETECTORS[name](texts)
        except ImportError as exc:
            print(f"{name}: not importable ({exc})")
    for a, b in [("ragstream", "detect-secrets"), ("ragstream", "credsweeper"), ("detect-secrets", "credsweeper")]:
        if a in results and b in results:
            results[f"{a} + {b}"] = Scores({k: results[a].found[k] | results[b].found[k] for k in texts},
                                           results[a].seconds + results[b].seconds)

    groups = [(c, f"{c} secrets", lambda x, c=c: x.corpus == c and x.secret) for c in dict.fromkeys(x.corpus for x in cases)]
    groups += [(c, f"{c} non-secrets", lambda x, c=c: x.corpus == c and not x.secret) for c in dict.fromkeys(x.corpus for x in cases)]
    groups.insert(len(groups), ("gitleaks", "gitleaks generic.go non-secrets",
                                lambda x: x.corpus == "gitleaks" and not x.secret and x.group == "generic"))
    header = f"{'cases':<34}{'n':>6}" + "".join(f"{name[:26]:>28}" for name in results)
    print(f"\n{len(texts)} distinct texts, {megabytes:.2f} MB; share of cases flagged")
    print(header)
    for _, label, test in groups:
        chosen = [(k, c) for k, c in zip(keys, cases, strict=True) if test(c)]
        if not chosen:
            continue
        row = f"{label:<34}{len(chosen):>6}"
        for scores in results.values():
            hit = sum(flagged(scores, k, c) for k, c in chosen)
            row += f"{hit / len(chosen):>21.3f} ({hit:>4})"
        print(row)
    print(f"{'seconds per MB':<40}" + "".join(f"{s.seconds / megabytes:>28.2f}" for s in results.values()))
    classes = {i: scope_class(c) for i, c in enumerate(cases) if c.secret}
    print("\nrecall on in-scope secrets (less out-of-scope cases; less artefacts too)")
    for corpus in dict.fromkeys(c.corpus for c in cases):
        for label, excluded in (("in scope", ("out of scope",)), ("in scope, no artefacts", ("out of scope", "artefact"))):
            chosen = [(k, c) for i, (k, c) in enumerate(zip(keys, cases, strict=True))
                      if c.corpus == corpus and c.secret and (classes[i] or ("", ""))[0] not in excluded]
            row = f"{corpus + ' ' + label:<34}{len(chosen):>6}"
            for scores in results.values():
                hit = sum(flagged(scores, k, c) for k, c in chosen)
                row += f"{hit / max(1, len(chosen)):>21.3f} ({hit:>4})"
            print(row)
    print("\nclasses left out (secrets, flagged by each detector)")
    for corpus in dict.fromkeys(c.corpus for c in cases):
        counted: dict[tuple[str, str], list[tuple[str, Case]]] = {}
        for i, (k, c) in enumerate(zip(keys, cases, strict=True)):
            if c.corpus == corpus and classes.get(i):
                counted.setdefault(classes[i], []).append((k, c))  # type: ignore[arg-type]
        for (kind, name), chosen in sorted(counted.items()):
            flags = " ".join(f"{sum(flagged(s, k, c) for k, c in chosen)}" for s in results.values())
            print(f"  {corpus} / {kind}: {name}: {len(chosen)} (flagged: {flags})")
    if args.misses in results:
        scores = results[args.misses]
        for key, case in zip(keys, cases, strict=True):
            if flagged(scores, key, case) != case.secret:
                what = "MISS" if case.secret else "FP  "
                scope = scope_class(case) if case.secret else None
                note = f"  [{scope[0]}: {scope[1]}]" if scope else ""
                print(f"{what} {case.corpus}/{case.group or case.file}: {labelled_line(case)[:160]!r}{note}")


if __name__ == "__main__":
    main()
