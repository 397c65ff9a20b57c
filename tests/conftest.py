"""Shared fixtures. Importing ragstream sets HF_HUB_OFFLINE/TRANSFORMERS_OFFLINE for every test."""
from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest

import ragstream  # noqa: F401  (offline switches)
from ragstream.config import load_settings
from ragstream.index.build import build_index
from ragstream.index.embeddings import Embedder

SAMPLE_REPO = Path(__file__).parent / "fixtures" / "sample_repo"


def make_settings(data_dir: Path, **sections):
    """Default settings with the data folder in `data_dir` and per-section overrides."""
    overrides = {"index": {"data_dir": str(data_dir)}}
    for section, values in sections.items():
        overrides.setdefault(section, {}).update(values)
    return load_settings(overrides=overrides)


def ctrl_c_as_in_a_terminal() -> None:
    """A child's `preexec_fn`: SIGINT back to its default. A suite run in the background of a
    non-interactive shell (`pytest ... &`) inherits SIGINT ignored, and so would every child a
    test sends Ctrl-C to: it would never see it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """A private copy of the sample repository that a test may change."""
    target = tmp_path / "sample_repo"
    shutil.copytree(SAMPLE_REPO, target)
    return target


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory):
    """The sample repository indexed once for the session: (repo copy, settings, report)."""
    root = tmp_path_factory.mktemp("built")
    repo = root / "sample_repo"
    shutil.copytree(SAMPLE_REPO, repo)
    settings = make_settings(root / "data")
    report = build_index(repo, settings, embedder=Embedder())
    return repo, settings, report


# The session's index of ragstream leaves its tests out: a third of its text, and no test asks
# about them; embedding them would cost CI minutes (~25 texts/s on a 2-core CPU).
SELF_INDEX_IGNORE = ["tests/"]


@pytest.fixture(scope="session")
def self_index(tmp_path_factory):
    """ragstream's own source (the bundled default, tests left out) indexed once for the
    session: (settings, report)."""
    from ragstream.config import PROJECT_ROOT

    settings = make_settings(tmp_path_factory.mktemp("self") / "data", index={"ignore": SELF_INDEX_IGNORE})
    return settings, build_index(PROJECT_ROOT, settings, name="self")


@pytest.fixture(scope="module")
def server():
    """A scripted OpenAI-compatible server on 127.0.0.1 (tests/openai_server.py), one per module."""
    from openai_server import ScriptedServer

    with ScriptedServer() as scripted:
        yield scripted


ACL_RULES = [{"paths": ["db/**"], "acl_tags": ["dba"], "classification_labels": ["confidential", "internal"],
              "owner_group": "data"}]


@pytest.fixture(scope="session")
def acl_backend(tmp_path_factory):
    """A backend over the sample repository indexed with db/ restricted to the `dba` tag."""
    from ragstream.retrieval.local_backend import LocalBackend

    root = tmp_path_factory.mktemp("acl")
    repo = root / "sample_repo"
    shutil.copytree(SAMPLE_REPO, repo)
    settings = make_settings(root / "data", acl={"rules": ACL_RULES})
    build_index(repo, settings)
    return LocalBackend(settings)
