"""Credentials recognisable by their own shape: a vendor's published prefix, a fixed length, a
private-key armour. Found anywhere in any text, whatever names it.

Shapes follow the public rule sets of established scanners, rewritten (not copied) to the
forms needed here: gitleaks `config/gitleaks.toml` (v8), detect-secrets `detect_secrets/plugins/`
(1.5) and trufflehog `pkg/detectors/` (v3). Each rule names its source.
"""
from __future__ import annotations

import re
import base64
import binascii
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

# What may follow a token: gitleaks' `(?:[\x60'"\s;]|\\[nr]|$)` end, widened to punctuation.
_END = r"(?![\w-])"


@dataclass(frozen=True)
class TokenRule:
    name: str
    regex: re.Pattern[str]
    hints: tuple[str, ...]  # a text holding none of these literals is not searched (cheap skip)
    group: int = 0  # the group holding the secret (0: the whole match)
    check: Callable[[str], bool] | None = None  # what the match must also pass (a decoded structure)
    bounded: bool = False  # the match must start a token (`_starts_token`)


# A token may start at a word boundary, or right after an escape inside a string literal
# ("...\\nghp_..."), a URL or hex encoding, or a terminal colour code (a log line), where `\b` sees
# no boundary between the escape's last character and the token (CredSweeper's rules allow the
# same left contexts). A rule's leading `\b` is checked in Python on each match rather than in
# the regex, so that a regex starting with its literal prefix is searched for that prefix fast.
_ESCAPE_BEFORE = re.compile(r"(?:\\[nrtabfv0]|%[0-9A-Fa-f]{2}|\\x[0-9A-Fa-f]{2}|\x1b\[[\d;]{0,8}m)$")


def _rule(name: str, pattern: str, *hints: str, group: int = 0,
          check: Callable[[str], bool] | None = None) -> TokenRule:
    unbounded = re.sub(r"(^|\|)\\b", r"\1", pattern)
    return TokenRule(name, re.compile(unbounded), hints, group, check, bounded=unbounded != pattern)


def _starts_token(text: str, at: int) -> bool:
    """Whether a token may start at `at`: a word boundary, or an escape or colour code before."""
    return (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")
            or bool(_ESCAPE_BEFORE.search(text, max(0, at - 12), at)))


def _b64(text: str) -> bytes:
    """`text` decoded as (URL-safe) base64, padding added; b"" when it is not base64."""
    try:
        return base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_") + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return b""


def _numeric_id_head(token: str) -> bool:
    """Atlassian personal access tokens: base64 of `<12-digit id>:<random bytes>`."""
    head = _b64(token[:16])
    return head.isdigit() and _b64(token[16:20])[:1] == b":"


def _jwt_parts(token: str) -> bool:
    """Signed (three parts), or a header and a payload that both decode to JSON objects."""
    return token.count(".") >= 2 or all(re.match(rb'\s*\{\s*"', _b64(part)) for part in token.split("."))


RULES: tuple[TokenRule, ...] = (
    # gitleaks private-key; detect-secrets PrivateKeyDetector
    # A key cut short (no END line) is redacted through its last line of base64 or armour header.
    _rule("private_key", r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?"
          r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
          r"|(?:(?:\r?\n|\\r?\\n)[ \t\"']*(?:[A-Za-z0-9+/=]{16,}|(?:Proc-Type|DEK-Info):[^\n]*))+"
          r"|(?:\r?\n|\\r?\\n)[^\n\\]+)", "PRIVATE KEY"),  # else its next line, whatever it holds
    # gitleaks aws-access-token; detect-secrets AWSKeyDetector
    _rule("aws_access_key_id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
          "AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    # gitleaks github-pat / -oauth / -app-token / -refresh-token / -fine-grained-pat
    _rule("github_token", rf"\b(?:gh[pousr]_[A-Za-z0-9]{{36,255}}|ghs_\d{{8}}_[\w.-]{{36,2000}}|github_pat_\w{{22,255}}){_END}",
          "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    # gitleaks gitlab-* (pat, deploy, runner, feed, scim, cicd-job, oauth-app ...)
    _rule("gitlab_token", rf"\bgl(?:pat|dt|rt|ptt|ft|soat|agent|cbt|imt|oas|ffct)-[\w-]{{20,300}}{_END}",
          "glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glagent-", "glcbt-", "glimt-", "gloas-", "glffct-"),
    # gitleaks openai-api-key, anthropic-api-key; trufflehog openai (sk- plus 20+ characters)
    _rule("openai_anthropic_key", rf"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?[\w-]{{20,300}}{_END}",
          "sk-"),
    # gitleaks slack-bot/user/app/legacy tokens; detect-secrets SlackDetector
    _rule("slack_token", rf"\bxox[abposre]-[\w-]{{10,250}}{_END}|\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", "xox", "xapp-"),
    # gitleaks gcp-api-key; detect-secrets... (Google API keys: AIza + 35)
    _rule("google_api_key", r"\bAIza[\w-]{35}(?![\w-])", "AIza"),
    # trufflehog gcpoauth client secrets
    _rule("google_oauth_secret", r"\bGOCSPX-[\w-]{28}(?![\w-])", "GOCSPX-"),
    # gitleaks stripe-access-token; detect-secrets StripeDetector
    _rule("stripe_key", rf"\b(?:(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{{10,99}}|whsec_[A-Za-z0-9+/=]{{24,}}){_END}",
          "k_test_", "k_live_", "k_prod_", "whsec_"),
    # gitleaks twilio-api-key; detect-secrets TwilioKeyDetector (SK / AC + 32 hex)
    _rule("twilio_key", r"\bSK[0-9a-fA-F]{32}\b", "SK"),
    # gitleaks sendgrid-api-token; detect-secrets SendGridDetector
    _rule("sendgrid_key", r"\bSG\.[\w-]{22}\.[\w-]{43}\b", "SG."),
    # gitleaks npm-access-token; detect-secrets NpmDetector
    _rule("npm_token", rf"\bnpm_[A-Za-z0-9]{{36}}{_END}", "npm_"),
    # gitleaks pypi-upload-token; detect-secrets PypiTokenDetector
    _rule("pypi_token", r"\bpypi-AgE[\w-]{50,1000}", "pypi-"),  # pypi.org and test.pypi.org
    # gitleaks huggingface-access-token / -organization-api-token
    _rule("huggingface_token", rf"\b(?:hf_|api_org_)[A-Za-z]{{34}}{_END}", "hf_", "api_org_"),
    # gitleaks jwt; detect-secrets JwtTokenDetector. A header or payload written with a space or a
    # line break after its `{` starts eyA / ewo instead of eyJ.
    # The signature is optional: an unsigned token (alg none, or its signature cut off) still
    # carries its claims, and servers that accept `none` take it as a credential.
    _rule("jwt", r"\be(?:y[JA]|w[o0k])[\w-]{10,}\.e(?:y[JA]|w[o0k])[\w-]{10,}(?:\.[\w-]{10,})?",
          "eyJ", "eyA", "ewo", "ew0", "ewk", check=_jwt_parts),
    # gitleaks azure-ad-client-secret (an Entra client secret: 3 chars, a digit, Q~, 31-34 more)
    _rule("azure_client_secret", r"(?<![\w~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])", "Q~"),
    # detect-secrets AzureStorageKeyDetector: the 88-character base64 account key
    _rule("azure_storage_key", r"(?i:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,}={0,2})",
          "AccountKey", "SharedAccessKey", "accountkey", "sharedaccesskey", group=1),
    # gitleaks digitalocean-pat / -access-token / -refresh-token
    _rule("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "_v1_"),
    # gitleaks shopify-*
    _rule("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "shp"),
    # gitleaks databricks-api-token
    _rule("databricks_token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", "dapi"),
    # gitleaks square-access-token / square-secret; detect-secrets SquareOAuthDetector
    _rule("square_token", rf"\bsq0(?:atp|csp)-[\w-]{{22,60}}{_END}|\bEAAA[\w-]{{60}}{_END}", "sq0", "EAAA"),
    # gitleaks mailgun-private-api-token; detect-secrets MailchimpDetector (32 hex + -usNN)
    _rule("mailgun_key", r"\bkey-[a-f0-9]{32}\b|\b[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}\b", "key-", "-"),
    _rule("mailchimp_key", r"\b[\w-]{32}-us\d{1,2}\b", "-us"),
    # gitleaks age-secret-key
    _rule("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "AGE-SECRET-KEY-"),
    # trufflehog dockerhub (personal access tokens)
    _rule("dockerhub_token", rf"\bdckr_(?:pat|oat)_[\w-]{{27,32}}{_END}", "dckr_pat_", "dckr_oat_"),
    # One rule per vendor prefix, so each regex is a fast literal-prefix search run only when its
    # prefix occurs. gitleaks: heroku-api-key-v2, vault-service-token / -batch-token,
    # doppler-api-token, pulumi-api-token, postman-api-token, linear-api-key, new-relic-user-api-key,
    # planetscale-*, sentry-*, grafana-*, dynatrace-api-token, openshift-user-token;
    # trufflehog telegrambottoken.
    _rule("heroku_key", rf"\bHRKU-[\w-]{{36,60}}{_END}", "HRKU-"),
    _rule("vault_token", rf"\bhvs\.[\w-]{{90,120}}{_END}|\bhvb\.[\w-]{{138,300}}{_END}", "hvs.", "hvb."),
    _rule("doppler_token", r"\bdp\.pt\.[A-Za-z0-9]{43}\b", "dp.pt."),
    _rule("pulumi_token", r"\bpul-[a-f0-9]{40}\b", "pul-"),
    _rule("postman_key", r"\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b|\bPMAT-[A-Z0-9]{26}\b", "PMAK-", "PMAT-"),
    _rule("linear_key", r"\blin_api_[A-Za-z0-9]{40}\b", "lin_api_"),
    _rule("newrelic_key", r"\bNRAK-[A-Z0-9]{27}\b", "NRAK-"),
    _rule("planetscale_token", rf"\bpscale_(?:tkn|oauth|pw)_[\w=.-]{{32,64}}{_END}", "pscale_"),
    _rule("sentry_token", r"\bsntry[su]_[\w+/=]{40,}", "sntry"),
    _rule("grafana_token", r"\bgl(?:c|sa)_[A-Za-z0-9+/_]{32,400}", "glc_", "glsa_"),
    _rule("dynatrace_token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b", "dt0c01."),
    _rule("openshift_token", rf"\bsha256~[\w-]{{43}}{_END}", "sha256~"),
    _rule("telegram_bot_token", r"\b\d{8,10}:AA[\w-]{33}\b", ":AA"),
    # Vendor prefixes that scanners' own test data showed missing (benchmarks/secret_corpora.py),
    # after gitleaks' rules of the same names and CredSweeper's `config.yaml` rules.
    _rule("onepassword_token", r"\bops_eyJ[\w+/=-]{200,}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
          r"-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b", "ops_eyJ", "A3-"),
    _rule("adobe_token", r"\bp8e-[A-Za-z0-9]{32}\b", "p8e-"),
    _rule("alibaba_key", r"\bLTAI[A-Za-z0-9]{12,20}\b", "LTAI"),
    _rule("atlassian_token", rf"\bATATT3[\w=-]{{150,}}|\bATBB[A-Za-z0-9]{{32}}\b|\bBBDC-[A-Za-z0-9+/]{{44}}{_END}",
          "ATATT3", "ATBB", "BBDC-"),
    _rule("aws_bedrock_key", r"\bABSK[A-Za-z0-9+/]{100,}={0,2}|\bbedrock-api-key-[A-Za-z0-9+/=]{20,}",
          "ABSK", "bedrock-api-key-"),
    _rule("brevo_key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", "xkeysib-"),
    _rule("cloudflare_token", r"\bcf(?:at|ut|k)_[A-Za-z0-9]{40,}\b", "cfat_", "cfut_", "cfk_"),
    # No prefix of its own: searched only in a text that names Discord or a bot token (a cheap skip).
    # Three parts, the first the base64 of a numeric id (M, N, O: its leading digit), the second six
    # characters: searched wherever a dot is, the shape alone being specific enough.
    _rule("discord_bot_token", r"\b[MNO](?=[A-Za-z]*\d)[A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,40}(?![\w-])", "."),
    _rule("docker_swarm_token", r"\bSWM(?:TKN|KEY)-1-[\w+/-]{40,}", "SWMTKN-1-", "SWMKEY-1-"),
    _rule("easypost_key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", "EZAK", "EZTK"),
    _rule("facebook_token", r"(?<![+/=])\bEAA[MC][A-Za-z0-9]{100,}", "EAAM", "EAAC"),
    _rule("figma_token", rf"\bfigd_[\w-]{{40}}{_END}", "figd_"),
    _rule("flyio_token", r"\bfo1_[\w-]{43}|\bfm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}", "fo1_", "fm1", "fm2"),
    _rule("google_oauth_token", r"\bya29\.[\w-]{30,}|(?<![\w/])1//0[\w-]{40,}", "ya29.", "1//0"),
    _rule("grafana_key", r"\beyJrIjoi[A-Za-z0-9+/]{60,}={0,2}", "eyJrIjoi"),
    _rule("groq_key", r"\bgsk_[A-Za-z0-9]{52}\b", "gsk_"),
    _rule("instagram_token", r"\bIGQV[\w-]{100,}", "IGQV"),
    _rule("intra42_secret", r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b", "s-s4t2"),
    _rule("jfrog_token", r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmdGtuOjAxOj[A-Za-z0-9+/]{40,}={0,2}", "AKCp", "cmVmdGtu"),
    _rule("llm_api_key", r"\b(?:pplx|llx)-[\w-]{48}\b", "pplx-", "llx-"),
    _rule("netlify_token", r"\bnfp_[A-Za-z0-9]{36}\b", "nfp_"),
    _rule("newrelic_other_key", r"\bNR(?:JS|II|BR)-[\w-]{19,32}|\b[a-z0-9]{36}NRAL\b", "NRJS-", "NRII-", "NRBR-", "NRAL"),
    _rule("notion_token", r"\bntn_\d{9}[\w-]{36,60}(?![\w-])", "ntn_"),
    _rule("nuget_key", r"\boy2[a-z0-9]{43}\b", "oy2"),
    _rule("posthog_key", r"\bph[csrax]_[A-Za-z0-9]{40,60}\b", "phc_", "phs_", "phr_", "pha_", "phx_"),
    _rule("rubygems_key", r"\brubygems_[a-f0-9]{48}\b", "rubygems_"),
    _rule("sourcegraph_token", r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b", "sgp_"),
    _rule("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}", ".atlasv1."),
    _rule("paypal_token", r"\baccess_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}\b", "access_token$"),
    _rule("flutterwave_secret", r"\bFLWSECK(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?\b|\bFLWSECK_TEST[a-h0-9]{12}\b", "FLWSECK"),
    _rule("akamai_token", r"\bakab-[a-z0-9]{16}-[a-z0-9]{16}\b", "akab-"),
    _rule("amazon_mws_key", r"\bamzn\.mws\.[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}\b", "amzn.mws."),
    # Microsoft's identifiable keys (Azure storage, Cosmos DB, service bus, ...): a signature inside.
    _rule("azure_identifiable_key", r"(?<![\w+/])[A-Za-z0-9]{52}JQQJ9[9DH][A-Za-z0-9]{26}(?:[A-Za-z0-9=]{4})?(?![\w+/])",
          "JQQJ9"),
    _rule("clojars_token", r"\bCLOJARS_[a-f0-9]{60}\b", "CLOJARS_"),
    _rule("defined_networking_key", r"\bdnkey-[A-Z2-7]{26}-[A-Z2-7]{52}\b", "dnkey-"),
    _rule("dropbox_token", r"\bsl\.(?:u\.)?[\w-]{77,200}|\b[A-Za-z0-9]{11}AAAAAAAAAA[\w-]{43}(?![\w-])",
          "sl.", "AAAAAAAAAA"),
    _rule("facebook_app_token", r"\b\d{12,18}\|[\w-]{24,28}(?![\w+-])", "|"),
    _rule("nats_nkey_seed", r"\bS[ACNOPUX][A-Z2-7]{56}\b", "SA", "SC", "SN", "SO", "SP", "SU", "SX"),
    _rule("ntlm_response", r"\bTlRMTVNTUAAD[A-Za-z0-9+/]{40,}={0,2}", "TlRMTVNTUAAD"),
    _rule("sonarqube_token", r"\bsq[upa]_[a-f0-9]{40}\b", "squ_", "sqp_", "sqa_"),
    _rule("supabase_token", r"\bsbp_(?:v0_)?[a-f0-9]{40}\b", "sbp_"),
    _rule("together_key", rf"\btgp_v1_[\w-]{{43}}{_END}", "tgp_v1_"),
    _rule("tavily_key", rf"\btvly-[\w-]{{32,40}}{_END}", "tvly-"),
    _rule("twitter_bearer_token", r"\bA{21}[A-Za-z0-9%]{40,150}", "AAAAAAAAAAAAAAAAAAAAA"),
    _rule("vercel_token", r"\bvc[pki]_[A-Za-z0-9]{56}\b", "vcp_", "vck_", "vci_"),
    _rule("xai_key", rf"\bxai-[\w-]{{80}}{_END}", "xai-"),
    _rule("wundergraph_key", r"\bcosmo_[a-f0-9]{32}\b", "cosmo_"),
    _rule("softlayer_key", r"\bapi\.softlayer\.com/(?:soap|rest)/v3(?:\.1)?/([a-z0-9]{64})\b", "softlayer", group=1),
    # Atlassian (Jira, Confluence, Bitbucket Server) personal access tokens: 44 characters of base64
    # whose first twelve bytes are digits and whose thirteenth is `:`; checked by decoding.
    _rule("atlassian_pat", r"(?<![A-Za-z0-9+])[MNO][A-Za-z0-9]{15}O[A-Za-z0-9+/]{27}(?![A-Za-z0-9+])", "O",
          check=_numeric_id_head),
    _rule("gitlab_other_token", r"\bgl(?:rtr|wt)-[\w-]{20,}|\bGR1348941[\w-]{20}|\b_gitlab_session=([a-z0-9]{32})\b",
          "glrtr-", "glwt-", "GR1348941", "_gitlab_session="),
)


# A value of a token's shape that documentation made up: AWS's AKIA...EXAMPLE, `sk-...example`,
# xxxxxx fillers. Nothing else is judged: a test's fake token (`ghp_` + 36 `a`) is redacted as a
# real one, since who wrote it cannot be told from the text.
_MADE_UP = re.compile(r"(?i)example|x{6}")


_ALL_HINTS = tuple(sorted({h for r in RULES for h in r.hints}))  # each looked up once per text
_RULES_OF_HINT = {h: [i for i, rule in enumerate(RULES) if h in rule.hints] for h in _ALL_HINTS}

# Looking each hint up costs a pass over the text per hint, most of a code file's redaction. A
# hint can only be in a text whose UTF-8 bytes hold each pair of adjacent bytes of the hint's, so
# one pass over a long text's bytes marks the pairs it holds, and only the hints whose pairs are
# all there are looked up (the same hints are found: the pairs are a necessary condition).
_SHORT_HINTS = tuple(h for h in _ALL_HINTS if len(h) == 1)
_PAIRED_HINTS = tuple(h for h in _ALL_HINTS if len(h) > 1)
_HINT_PAIRS = np.array([first << 8 | second for h in _PAIRED_HINTS for first, second in zip(h.encode(), h.encode()[1:])],
                       dtype=np.intp)
_HINT_STARTS = np.cumsum([0] + [len(h.encode()) - 1 for h in _PAIRED_HINTS[:-1]])
_PAIRS_FROM = 1024  # characters: below this, looking every hint up costs less than the pass


def _present_hints(text: str) -> set[str]:
    """The hints that occur in `text`."""
    if len(text) < _PAIRS_FROM:
        return {h for h in _ALL_HINTS if h in text}
    data = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    held = np.zeros(1 << 16, dtype=bool)
    held[(data[:-1].astype(np.intp) << 8) | data[1:]] = True
    possible = np.logical_and.reduceat(held[_HINT_PAIRS], _HINT_STARTS).tolist()
    return {h for h in _SHORT_HINTS if h in text} | \
        {h for h, maybe in zip(_PAIRED_HINTS, possible) if maybe and h in text}


def find(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, rule name) of every known-shape credential in `text`."""
    present = _present_hints(text)
    for index in sorted({index for hint in present for index in _RULES_OF_HINT[hint]}):  # in RULES' order
        rule = RULES[index]
        for match in rule.regex.finditer(text):
            value = match.group(rule.group)
            if rule.bounded and not _starts_token(text, match.start()):
                continue
            if not _MADE_UP.search(value) and (rule.check is None or rule.check(value)):
                yield match.start(rule.group), match.end(rule.group), rule.name
