"""What a path is for: code, or tests, fixtures, samples, examples and benchmarks (which exercise
the code rather than being it: a question about the code rarely wants them first, and a semantic
fill embeds them last)."""
from __future__ import annotations

import re

TEST_PATH = re.compile(r"(^|/)(tests?|testing|samples?|examples?|fixtures?|benchmarks?)/|(^|/)test_[^/]*$|_test\.\w+$")


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))
