"""What a path is for: code, or tests, fixtures, samples and examples (which a question about
the code rarely wants first, and which a semantic fill embeds last)."""
from __future__ import annotations

import re

TEST_PATH = re.compile(r"(^|/)(tests?|testing|samples?|examples?|fixtures?)/|(^|/)test_[^/]*$|_test\.\w+$")


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))
