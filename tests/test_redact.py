"""Secret redaction on the planted corpus (every claimed shape, every file type, commit messages),
on look-alikes that must stay, and on the texts stored or sent besides files."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ragstream.history import HistoryStore
from ragstream.llm.prompts import render
from ragstream.redact import REDACTED, redact, redact_path, redact_text
from ragstream.redact.corpus import COMMIT, plants
from ragstream.super_prompt import SuperPrompt

LANGUAGE = {".py": "python", ".cs": "csharp", ".sql": "sql"}
PLANTS = plants()
CLAIMED = [p for p in PLANTS if p.caught]


def language_of(path: str) -> str:
    return "text" if path == COMMIT else LANGUAGE.get(Path(path).suffix, "text")


def test_the_corpus_is_broad():
    assert len(CLAIMED) >= 150
    kinds = {language_of(p.path) for p in CLAIMED} | {Path(p.path).suffix for p in CLAIMED}
    assert {"python", "csharp", "sql", "text", ".md", ".yaml", ".toml", ".ini", ".cfg", ".txt", ".rst"} <= kinds
    assert sum(p.path == COMMIT for p in CLAIMED) >= 15
    assert plants() == PLANTS  # the same seed gives the same values


@pytest.mark.parametrize("plant", CLAIMED, ids=[p.shape for p in CLAIMED])
def test_every_claimed_shape_is_redacted(plant):
    clean, fired = redact(plant.text, language_of(plant.path))
    assert fired and REDACTED in clean
    for secret in plant.secrets:
        assert secret not in clean, clean
    assert clean.count("\n") == plant.text.count("\n")  # line spans stay exact
    assert redact(clean, language_of(plant.path)) == (clean, [])  # a second pass finds nothing


@pytest.mark.parametrize("plant", [p for p in PLANTS if not p.caught], ids=lambda p: p.shape)
def test_documented_misses_are_still_missed(plant):
    """README lists these as what redaction cannot catch; if one starts to be caught, update it."""
    clean, _ = redact(plant.text, language_of(plant.path))
    assert any(secret in clean for secret in plant.secrets)


def test_redacted_code_still_parses_and_keeps_its_quotes():
    python = "\n\n".join(p.text for p in CLAIMED if p.path == "app/settings.py")
    clean, _ = redact(python, "python")
    ast.parse(clean)
    assert 'DB_PASSWORD = "[REDACTED]"' in clean and "PASSWORD = '[REDACTED]'" in clean
    assert 'connect(host="db", password="[REDACTED]")' in clean


KEPT = [  # (language, text): secret-named, but no secret in them
    ("python", "password = get_password()"),
    ("python", "token = self._token"),
    ("python", "password = os.environ['DB_PASSWORD']"),
    ("python", "max_tokens = 800"),
    ("python", 'tokenizer = "cl100k_base"'),
    ("python", 'TOKEN_TYPE = "Bearer"'),
    ("python", 'PASSWORD_HASHERS = "django.contrib.auth.hashers.PBKDF2PasswordHasher"'),
    ("python", 'password_field = "Password1"'),
    ("python", 'api_key = "${API_KEY}"'),
    ("python", 'key = f"user:{user_id}"'),
    ("python", 'AWS_ACCESS_KEY_ID_ENV = "AWS_ACCESS_KEY_ID"'),
    ("python", 'token_pattern = r"(?u)\\b\\w\\w+\\b"'),
    ("python", "len(tiktoken.get_encoding('cl100k_base'))"),
    ("python", "# the token expires after 3600 seconds"),
    ("python", 'headers = {"Authorization": f"Bearer {token}"}'),
    ("csharp", "if (ReferenceEquals(Authorization, DefaultAuthorization)) return;"),
    ("csharp", "Password = model.Password;"),
    ("csharp", 'var cs = "Server=db;Password=" + password + ";";'),
    ("sql", "SELECT password_hash FROM users WHERE id = @id;"),
    ("sql", "-- the password column holds a bcrypt hash"),
    ("text", "secret_files: [.env, '*.pem']"),
    ("text", "db:\n  password: ${DB_PASSWORD}\n  api_key: <your-api-key>"),
    ("text", "Connect with postgres://user:password@localhost/db"),
    ("text", "PYTHONPATH=$PWD .venv/bin/python -m pytest"),
    ("text", "the second pass (2024-11-18) and the token budget"),
    ("text", "Token-based auth: the bearer token is checked on every request."),
    ("text", "version_token: 1.2.3"),
]


@pytest.mark.parametrize("language, text", KEPT)
def test_look_alikes_are_kept(language, text):
    assert redact(text, language) == (text, [])


def test_unquoted_values_in_code_count_only_in_comments_and_docstrings():
    assert redact("password = hunter22x", "python") == ("password = hunter22x", [])
    assert redact("# password = hunter22x", "python")[0] == "# password = [REDACTED]"
    assert redact('"""password = hunter22x"""', "python")[0] == '"""password = [REDACTED]"""'
    assert redact("-- password = hunter22x", "sql")[0] == "-- password = [REDACTED]"
    assert redact("/* password = hunter22x */", "csharp")[0] == "/* password = [REDACTED] */"


def test_history_stores_turns_and_summaries_redacted(tmp_path: Path):
    secret = "Zq" + "81mxv!Kp0"
    store = HistoryStore(tmp_path / "history.sqlite")
    session = store.create_session(f"login with password={secret}")
    store.add_turn(session, question_raw=f"why does password={secret} fail?", question_en=f"pw {secret}",
                   answer_en=f"the password is {secret}", answer=f"password: {secret}", pipeline="base",
                   index_name="main")
    store.add_summary(session, f"they use password={secret}", 1, 1)
    for path in tmp_path.iterdir():
        assert secret.encode() not in path.read_bytes(), path
    turn = store.turns(session)[0]
    assert turn.question_raw == "why does password=[REDACTED] fail?"


def test_prompts_sent_to_a_model_are_redacted():
    token = "gh" + "p_" + "Ab3" * 12
    messages = render("summarizer", {"question": f"what is {token}?", "previous": "(none)",
                                     "turns": f"Q: set api_key={token}\nA: ok", "limit": "100"})
    assert token not in str(messages) and REDACTED in messages[1]["content"]
    assert redact_text(f"use {token}") == "use [REDACTED]"


def test_a_stored_state_with_escaped_quotes_stays_json_and_loses_its_secret(tmp_path: Path):
    """Redacting the serialized state as text ate the `\\` of `\\"` (`password: X\\"` read as a bare
    value `X\\`) and stored invalid JSON, so every follow-up failed; values are redacted now."""
    secret = "Zq8" + "vR2mLp0xT"
    state = SuperPrompt(question_raw='what does "retry" mean?', answer=f'Set "password: {secret}" in the file')
    store = HistoryStore(tmp_path / "history.sqlite")
    session = store.create_session("s")
    store.add_turn(session, question_raw=state.question_raw, question_en=state.question_raw, answer_en=state.answer,
                   answer=state.answer, pipeline="base", index_name="main", state=state.to_json())
    stored = store.turns(session)[0].state
    assert stored is not None and secret not in stored
    reloaded = SuperPrompt.from_json(stored)  # parses: the follow-up reads it back
    assert reloaded.question_raw == 'what does "retry" mean?'
    assert reloaded.answer == f'Set "password: {REDACTED}" in the file'


def test_a_path_holding_a_token_is_redacted_and_stays_distinct():
    token_a, token_b = "gh" + "p_" + "Nf4qZ8" * 6, "gh" + "p_" + "Wq7tR2" * 6
    a, b = redact_path(f"keys/{token_a}.txt"), redact_path(f"keys/{token_b}.txt")
    assert token_a not in a and a.startswith("keys/[REDACTED~") and a.endswith("].txt")
    assert a != b and redact_path(a) == a  # two files stay two; a second pass changes nothing
    assert redact_path("src/app/main.py") == "src/app/main.py"


def test_hints_found_through_byte_pairs_are_those_every_lookup_finds():
    # A long text's hints are looked up only where all their byte pairs occur; the set must be the
    # one looking every hint up gives, also beside non-ASCII text and a lone surrogate.
    from ragstream.redact import tokens

    filler = "x = 'caf\u00e9 \u2603' \udcff\n" * 100  # over the length that takes the byte pairs
    assert len(filler) >= tokens._PAIRS_FROM
    for hint in tokens._ALL_HINTS:
        text = filler + f"value = '{hint}'\n" + filler
        assert tokens._present_hints(text) == {h for h in tokens._ALL_HINTS if h in text}
    pairs_apart = filler + "gh hp p_ AK KI IA\n"  # every pair of ghp_ and AKIA, neither hint
    assert not {"ghp_", "AKIA"} & tokens._present_hints(pairs_apart)
    token = "ghp_" + "Ab1" * 12
    assert redact(filler + f"token = {token}\n")[0].count(token) == 0
