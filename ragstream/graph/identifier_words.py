"""Plain words for what code names with one word of its own, said beside them: "sign-in
attempts" are `LoginAttempt`s, "configuration options" `Setting`s, "photos" `Image`s. Applied to a
question's words (`phrases`, `questions.asked_subject_words`) and to the words of a code name
(`relations.entry_words`: `LogOn` says "log on", so also "login"), so both say the code's word.
"""
from __future__ import annotations

import re

# The code's word is said beside the plain one (neither replaces the other: a `SignInLog` still
# meets "sign-in").
IDENTIFIER_WORDS = (
    (re.compile(r"\b(?:sign(?:ed|ing|s)?[\s-]?in|log(?:ged|ging|s)?[\s-]in|log[\s-]?on)s?\b", re.IGNORECASE), "login"),
    (re.compile(r"\b(?:sign(?:ed|ing|s)?[\s-]?out|log(?:ged|ging|s)?[\s-]out|log[\s-]?off)s?\b", re.IGNORECASE), "logout"),
    (re.compile(r"\bsign(?:ed|ing|s)?[\s-]ups?\b", re.IGNORECASE), "registration"),
    (re.compile(r"\be-mails?\b", re.IGNORECASE), "email"),
    (re.compile(r"\b(?:options|preferences|configuration\s+values?)\b", re.IGNORECASE), "settings"),
    (re.compile(r"\b(?:pictures?|photos?)\b", re.IGNORECASE), "image"),
)


def with_identifier_words(question: str) -> str:
    """The question with the code's word said after each plain phrase for it (`IDENTIFIER_WORDS`)."""
    for pattern, word in IDENTIFIER_WORDS:
        question = pattern.sub(rf"\g<0> {word}", question)
    return question
