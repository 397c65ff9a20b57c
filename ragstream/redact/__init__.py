"""Secret redaction: credentials never enter the index, the history, a prompt or any output.

`redactor` applies the finders: `tokens` (known credential shapes), `urls` (credentials and
webhooks in URLs), `assignments` (values given to secret-named keys, judged by `keys` and
`values`), `contexts` (values their surroundings give away: block scalars, DSNs, command lines,
prose pairs, cookies, encoded keys, split literals).
"""
from ragstream.redact.redactor import (REDACTION_VERSION, find_secrets, redact, redact_path, redact_text,
                                       redact_value)
from ragstream.redact.values import REDACTED

__all__ = ["REDACTED", "REDACTION_VERSION", "find_secrets", "redact", "redact_path", "redact_text", "redact_value"]
