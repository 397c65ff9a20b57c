"""What a question must be before any stage runs: some text, and not more than the limit."""
from __future__ import annotations

from ragstream.errors import QuestionError


def check_question(question: str, limit: int) -> str:
    """`question` when it can be asked; a QuestionError saying why not (the limit named)."""
    if not isinstance(question, str) or not question.strip():
        raise QuestionError("the question is empty; ask something about the code", where="question")
    if len(question) > limit:
        raise QuestionError(f"the question has {len(question):,} characters; the limit is {limit:,}",
                            where="question", hint="shorten it, or raise limits.max_question_chars "
                                                   "(config file or pipeline settings)")
    return question
