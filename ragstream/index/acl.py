"""Index-time access policy: which acl_tags, classification labels and owner group a path gets.

The retrieval backend enforces `retrieval_filters` against what this assigns; the policy itself
only labels. Globs use gitignore syntax (pathspec), like every other path rule in ragstream.
"""
from __future__ import annotations

from dataclasses import dataclass

import pathspec

from ragstream.config import AclSettings
from ragstream.errors import ConfigError

RULE_KEYS = {"paths", "acl_tags", "classification_labels", "owner_group"}


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
    """The policy of the `acl` settings; a malformed rule names its index and key."""
    rules = []
    for index, rule in enumerate(settings.rules):
        where = f"acl.rules[{index}]"
        unknown = sorted(set(rule) - RULE_KEYS)
        if unknown:
            raise ConfigError(f"unknown key(s) {unknown}; known: {sorted(RULE_KEYS)}", where=where)
        paths = rule.get("paths")
        if not paths or not _strings(paths):
            raise ConfigError("`paths` must be a non-empty list of globs", where=f"{where}.paths")
        for key in ("acl_tags", "classification_labels"):
            if not _strings(rule.get(key, [])):
                raise ConfigError(f"`{key}` must be a list of strings", where=f"{where}.{key}")
        owner = rule.get("owner_group")
        if owner is not None and not isinstance(owner, str):
            raise ConfigError("`owner_group` must be a string", where=f"{where}.owner_group")
        try:
            spec = pathspec.GitIgnoreSpec.from_lines(paths)
        except ValueError as exc:
            raise ConfigError(f"invalid path glob: {exc}", where=f"{where}.paths") from exc
        rules.append(AclRule(spec, tuple(rule.get("acl_tags", [])),
                             tuple(rule.get("classification_labels", [])), owner))
    return AclPolicy(tuple(settings.default_tags), tuple(settings.default_labels),
                     settings.default_owner, tuple(rules))


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
