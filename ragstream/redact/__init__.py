"""Secret redaction: credentials never enter the index, the history, a prompt or any output.

`redactor` applies the finders: `tokens` (known credential shapes), `urls` (credentials and
webhooks in URLs), `assignments` (values given to secret-named keys, judged by `keys` and
`values`).
"""
from ragstream.redact.redactor import REDACTION_VERSION, find_secrets, redact, redact_text
from ragstream.redact.values import REDACTED

__all__ = ["REDACTED", "REDACTION_VERSION", "find_secrets", "redact", "redact_text"]
