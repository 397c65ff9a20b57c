"""`ragstream ui`: this process becomes the workbench's Streamlit server."""
from __future__ import annotations

import argparse
import sys

from ragstream.config import load_settings


def ui_command(args: argparse.Namespace) -> int:
    """Become the Streamlit server of ui_streamlit.py; settings and the default-index wish go by
    environment (Streamlit owns the script's argv)."""
    import os
    from pathlib import Path

    from ragstream.config import PROJECT_ROOT
    from ragstream.ui import BUILD_DEFAULT_ENV, CONFIG_ENV, DEFAULT_BUILD_ENV

    settings = load_settings(args.config)  # a broken settings file fails here, not in the page
    config = str(Path(args.config).resolve()) if args.config else ""
    env = {**os.environ, CONFIG_ENV: config, BUILD_DEFAULT_ENV: "1" if args.build_default else ""}
    env.pop(DEFAULT_BUILD_ENV, None)
    if args.build_default:
        from ragstream.config import DEFAULT_INDEX_NAME
        from ragstream.index.background import start_followed_build

        # Started now, before Streamlit: the index is askable seconds sooner. The child decides
        # whether there is anything to build (`--if-stale`); it stays this process's child
        # across the exec below, and the page follows its events.
        process, events = start_followed_build(settings, PROJECT_ROOT, DEFAULT_INDEX_NAME, None, config or None)
        assert process.stdin is not None, "started with stdin=PIPE"
        os.set_inheritable(process.stdin.fileno(), True)  # the server holds the child's pipe: it ends with it
        env[DEFAULT_BUILD_ENV] = f"{process.pid}:{events}"
    command = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "ui_streamlit.py"),
               "--server.address", "127.0.0.1", "--server.port", str(args.port), "--server.headless", "true",
               "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal",
               "--client.showErrorDetails", "none",  # a backstop: panels show errors in place
               "--server.fileWatcherType", "none"]  # no reloading: scanning torch's modules on every rerun is slow
    print(f"ragstream workbench: http://127.0.0.1:{args.port}", flush=True)
    os.execve(sys.executable, command, env)
