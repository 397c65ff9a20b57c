"""Index-time access policy: which acl_tags, classification labels and owner group a path gets.

The retrieval backend enforces `retrieval_filters` against what this assigns; the policy itself
only labels. Globs use gitignore syntax (pathspec), like every other path rule in ragstream.
"""
from __future__ import annotations

from dataclasses import dataclass

import pathspec

from ragstream.config import AclSettings
from ragstream.errors import ConfigError
from ragstream.globs import compile_globs


@dataclass(frozen=True)
class AclRule:
    spec: pathspec.GitIgnoreSpec
    acl_tags: tuple[str, ...]
    classification_labels: tuple[str, ...]
    owner_group: str | None


@dataclass(frozen=True)
class AclPolicy:
    default_tags: tuple[str, ...]
    default_labels: tuple[str, ...]
    default_owner: str
    rules: tuple[AclRule, ...]

    def for_path(self, path: str) -> dict:
        """`acl_tags`, `classification_labels` (sorted) and `owner_group` of one path: the last
        matching rule decides (as in CODEOWNERS), the defaults apply when none matches. A rule
        replaces the defaults rather than adding to them, so a restricted folder never keeps
        the `public` tag."""
        rule = next((r for r in reversed(self.rules) if r.spec.match_file(path)), None)
        if rule is None:
            return {"acl_tags": sorted(self.default_tags),
                    "classification_labels": sorted(self.default_labels),
                    "owner_group": self.default_owner}
        return {"acl_tags": sorted(rule.acl_tags),
                "classification_labels": sorted(rule.classification_labels),
                "owner_group": rule.owner_group if rule.owner_group is not None else self.default_owner}


def acl_policy(settings: AclSettings) -> AclPolicy:
    """The policy of the `acl` settings (checked whole when the settings were loaded)."""
    rules = tuple(AclRule(compile_globs(rule["paths"], f"acl.rules[{index}].paths", ConfigError),
                          tuple(rule.get("acl_tags", [])), tuple(rule.get("classification_labels", [])),
                          rule.get("owner_group"))
                  for index, rule in enumerate(settings.rules))
    return AclPolicy(tuple(settings.default_tags), tuple(settings.default_labels), settings.default_owner, rules)
