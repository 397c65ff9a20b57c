"""What a question must be before any stage runs: some text, valid UTF-8, and not more than the limit."""
from __future__ import annotations

from ragstream.errors import QuestionError


class Question(str):
    """A question `check_question` let through, with the limit it was held to: a turn checks its
    question once, and whatever it is handed on to knows it was checked."""

    limit: int

    def __new__(cls, text: str, limit: int) -> Question:
        checked = super().__new__(cls, text)
        checked.limit = limit
        return checked

    def __reduce__(self) -> tuple:
        return Question, (str(self), self.limit)


def check_question(question: str, limit: int) -> Question:
    """`question` when it can be asked; a QuestionError saying why not (the limit named)."""
    if isinstance(question, Question) and question.limit == limit:
        return question
    if not isinstance(question, str) or not question.strip():
        raise QuestionError("the question is empty; ask something about the code", where="question")
    if problem := not_utf8(question):
        raise QuestionError(problem, where="question", hint="pass the question as UTF-8 text")
    if len(question) > limit:
        raise QuestionError(f"the question has {len(question):,} characters; the limit is {limit:,}",
                            where="question", hint="shorten it, or raise limits.max_question_chars "
                                                   "(config file or pipeline settings)")
    return Question(question, limit)


def not_utf8(text: str) -> str | None:
    """What is wrong when `text` holds characters no UTF-8 text has (a command line's bytes that
    are not UTF-8 arrive as lone surrogates, and every tokenizer rejects them); None when clean."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = ord(text[exc.start])
        byte = f" 0x{char - 0xDC00:02x}" if 0xDC80 <= char <= 0xDCFF else ""  # Python's surrogateescape
        return f"not valid UTF-8 text: byte{byte} at character {exc.start + 1:,} cannot be decoded"
    return None
