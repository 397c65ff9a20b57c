"""Index-time access policy: which acl_tags, classification labels and owner group a path gets.

The retrieval backend enforces `retrieval_filters` against what this assigns; the policy itself
only labels. Globs use gitignore syntax (pathspec), like every other path rule in ragstream, and
are compared with paths as `retrieval_filters` are: both Unicode NFKC without format characters
(`globs.folded`), so a fullwidth or zero-width spelling labels the path it reads as. Matching is
case-sensitive, as paths in git are; a rule that labels no indexed path while its case-folded
form would, or that mixes look-alike scripts in a name, is refused (`AclPolicy.check`): a rule
that labels nothing would leave the files it meant to restrict with the defaults.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pathspec

from ragstream.config import AclSettings
from ragstream.errors import ConfigError
from ragstream.globs import compile_globs, folded, mixed_script_letters


@dataclass(frozen=True)
class AclRule:
    where: str  # the setting: acl.rules[N].paths
    globs: tuple[str, ...]  # as compiled: folded
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
        path = folded(path)
        rule = next((r for r in reversed(self.rules) if r.spec.match_file(path)), None)
        if rule is None:
            return {"acl_tags": sorted(self.default_tags),
                    "classification_labels": sorted(self.default_labels),
                    "owner_group": self.default_owner}
        return {"acl_tags": sorted(rule.acl_tags),
                "classification_labels": sorted(rule.classification_labels),
                "owner_group": rule.owner_group if rule.owner_group is not None else self.default_owner}


    def check(self, paths: Iterable[str]) -> None:
        """A ConfigError naming the rule that labels none of the indexed `paths` while its
        case-folded form labels some (`Secrets/**` for `secrets/`), or whose glob mixes scripts
        in a name (a look-alike letter): either would leave what it meant to restrict public."""
        paths = [folded(p) for p in paths]
        lowered = [p.casefold() for p in paths]
        for rule in self.rules:
            if any(rule.spec.match_file(p) for p in paths):
                continue
            case_folded = pathspec.GitIgnoreSpec.from_lines([g.casefold() for g in rule.globs])
            near = next((p for p, low in zip(paths, lowered, strict=True) if case_folded.match_file(low)), None)
            if near is not None:
                raise ConfigError(f"{list(rule.globs)} label no indexed path, but would label {near!r} in "
                                  "another case: paths match case-sensitively", where=rule.where,
                                  hint="write the glob in the case of the paths it names")
            if mixed := [m for g in rule.globs for m in mixed_script_letters(g)]:
                raise ConfigError(f"{list(rule.globs)} label no indexed path, and mix scripts in one name: "
                                  f"{', '.join(mixed)}; a look-alike letter names a different path",
                                  where=rule.where, hint="write the name in one script (retype it rather than pasting it)")


def acl_policy(settings: AclSettings) -> AclPolicy:
    """The policy of the `acl` settings (checked whole when the settings were loaded)."""
    rules = []
    for index, rule in enumerate(settings.rules):
        where = f"acl.rules[{index}].paths"
        globs = tuple(folded(glob) for glob in rule["paths"])
        rules.append(AclRule(where, globs, compile_globs(globs, where, ConfigError), tuple(rule.get("acl_tags", [])),
                             tuple(rule.get("classification_labels", [])), rule.get("owner_group")))
    return AclPolicy(tuple(settings.default_tags), tuple(settings.default_labels), settings.default_owner,
                     tuple(rules))
