"""A planted-secret corpus: credentials of common shapes in every kind of file ragstream indexes
(Python, C#, SQL, Markdown, text, YAML, TOML, INI) and in commit messages, with fake values made
at run time from a seed, so no secret-looking literal sits in the repository.

`plants()` lists them; `write_repository()` lays them out as a git repository. A plant with
`caught=False` is a documented miss (README: what redaction cannot catch): the benchmark counts
it, the end-to-end test leaves it out.
"""
from __future__ import annotations

import base64
import json
import random
import string
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

COMMIT = "<commit message>"  # the `path` of a plant that lives in a commit message


@dataclass(frozen=True)
class Plant:
    shape: str  # what it is and where: "python: password keyword argument"
    path: str  # the file it is written to, or COMMIT
    text: str  # the line(s) holding it
    secrets: tuple[str, ...]  # values that must never appear in anything derived
    caught: bool = True


class Fake:
    """Random-looking credential values of each vendor's shape, from a seed."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def alnum(self, n: int) -> str:
        return self.chars(string.ascii_letters + string.digits, n)

    def hex(self, n: int) -> str:
        return self.chars("0123456789abcdef", n)

    def b64(self, n: int) -> str:
        return self.chars(string.ascii_letters + string.digits + "+/", n)

    def password(self) -> str:
        """Upper, lower, digits and a symbol: the shape of a password policy's output."""
        body = self.chars(string.ascii_uppercase, 2) + self.chars(string.ascii_lowercase, 5)
        return body + self.chars(string.digits, 3) + self.chars("!@#%*-_+", 1) + self.chars(string.ascii_lowercase, 2)

    def aws_key_id(self) -> str:
        return "AK" + "IA" + self.chars(string.ascii_uppercase + "234567", 16)

    def slack_bot(self) -> str:
        return "xo" + "xb-" + self.chars(string.digits, 11) + "-" + self.chars(string.digits, 12) + "-" + self.alnum(24)

    def slack_path(self) -> str:
        """The secret part of a Slack webhook URL: workspace, channel, token."""
        return f"T{self.alnum(8).upper()}/B{self.alnum(8).upper()}/{self.alnum(24)}"

    def jwt(self) -> str:
        def part(data: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
        return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': self.alnum(12)})}.{self.alnum(43)}"

    def private_key(self) -> str:
        kind = "RSA " + "PRIVATE KEY"
        lines = "\n".join(self.b64(64) for _ in range(4))
        return f"-----BEGIN {kind}-----\n{lines}\n-----END {kind}-----"


def _tokens(f: Fake) -> dict[str, str]:
    """One fake value per known token shape (prefixes as published by each vendor)."""
    return {
        "aws_access_key_id": f.aws_key_id(),
        "github_pat": "gh" + "p_" + f.alnum(36),
        "github_oauth": "gh" + "o_" + f.alnum(36),
        "github_fine_grained": "github" + "_pat_" + f.alnum(22) + "_" + f.alnum(59),
        "gitlab_pat": "gl" + "pat-" + f.alnum(20),
        "openai_project": "sk-" + "proj-" + f.alnum(48),
        "anthropic": "sk-" + "ant-api03-" + f.alnum(93) + "AA",
        "slack_bot": f.slack_bot(),
        "slack_user": "xo" + "xp-" + f.chars(string.digits, 11) + "-" + f.chars(string.digits, 12) + "-" + f.alnum(32),
        "google_api": "AI" + "za" + f.alnum(35),
        "google_oauth_secret": "GOC" + "SPX-" + f.alnum(28),
        "stripe_live": "sk" + "_live_" + f.alnum(24),
        "stripe_restricted": "rk" + "_test_" + f.alnum(24),
        "twilio": "S" + "K" + f.hex(32),
        "sendgrid": "S" + "G." + f.alnum(22) + "." + f.alnum(43),
        "npm": "np" + "m_" + f.alnum(36),
        "pypi": "pypi-" + "AgEIcHlwaS5vcmc" + f.alnum(60),
        "huggingface": "h" + "f_" + f.chars(string.ascii_letters, 34),
        "jwt": f.jwt(),
        "azure_client_secret": f.alnum(3) + f.chars(string.digits, 1) + "Q" + "~" + f.alnum(32),
        "digitalocean": "do" + "p_v1_" + f.hex(64),
        "shopify": "shp" + "at_" + f.hex(32),
        "databricks": "da" + "pi" + f.hex(32),
        "square": "sq0" + "atp-" + f.alnum(22),
        "mailgun": "ke" + "y-" + f.hex(32),
        "mailchimp": f.hex(32) + "-us" + "12",
        "age": "AGE-" + "SECRET-KEY-1" + f.chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        "dockerhub": "dckr" + "_pat_" + f.alnum(27),
        "heroku": "HRKU" + "-AA" + f.alnum(58),
        "vault": "hv" + "s." + f.alnum(95),
        "doppler": "dp" + ".pt." + f.alnum(43),
        "pulumi": "pu" + "l-" + f.hex(40),
        "postman": "PM" + "AK-" + f.hex(24) + "-" + f.hex(34),
        "linear": "lin" + "_api_" + f.alnum(40),
        "newrelic": "NR" + "AK-" + f.chars(string.ascii_uppercase + string.digits, 27),
        "planetscale": "pscale" + "_tkn_" + f.alnum(43),
        "telegram": f.chars(string.digits, 9) + ":" + "AA" + f.alnum(33),
        "private_key": f.private_key(),
    }


def _token_contexts() -> list[tuple[str, str, Callable[[str, str], str]]]:
    """(file, context name, line maker) in which every token shape is planted (two each)."""
    return [
        ("app/vendor_keys.py", "python constant", lambda k, v: f'{k.upper()} = "{v}"'),
        ("src/Vendor/Keys.cs", "csharp field", lambda k, v: f'        internal static string Value_{k} = "{v}";'),
        ("db/vendor_notes.sql", "sql comment", lambda k, v: f"-- {k} for the nightly job: {v}"),
        ("docs/vendors.md", "markdown prose", lambda k, v: f"The {k} we use in staging is {v} (rotate monthly)."),
        ("config/vendors.yaml", "yaml value", lambda k, v: f"{k}_ref: {v}"),
    ]


def plants(seed: int = 19) -> list[Plant]:
    """Every planted secret: token shapes in several contexts, secret-named assignments in each
    syntax, URLs, commit messages, and the documented misses."""
    f = Fake(seed)
    out: list[Plant] = []
    contexts = _token_contexts()
    for i, (name, value) in enumerate(_tokens(f).items()):
        for path, where, line in (contexts[i % len(contexts)], contexts[(i + 2) % len(contexts)]):
            if name == "private_key" and path.endswith(".py"):
                out.append(Plant(f"{name} in {where}", path, f'{name.upper()} = """{value}"""', (value,)))
            elif name == "private_key":
                out.append(Plant(f"{name} in {where}", path.replace(".cs", ".md").replace(".yaml", ".md"),
                                 value, (value,)))
            else:
                out.append(Plant(f"{name} in {where}", path, line(name, value), (value,)))
    out += _named_plants(f)
    out += _commit_plants(f)
    out += _misses(f)
    return out


def _named_plants(f: Fake) -> list[Plant]:
    p = f.password
    aws_id, aws_secret, bearer = f.aws_key_id(), f.b64(40), f.alnum(40)
    azure_key = f.b64(86) + "=="
    rows: list[tuple[str, str, str, tuple[str, ...]]] = []

    def add(shape: str, path: str, template: str, *values: str) -> None:
        rows.append((shape, path, template.format(*values), values))

    py = "app/settings.py"
    add("python: AWS secret key under its key id", py,
        'AWS_ACCESS_KEY_ID = "{}"\nAWS_SECRET_ACCESS_KEY = "{}"', aws_id, aws_secret)
    add("python: password constant", py, 'DB_PASSWORD = "{}"', p())
    add("python: single-quoted password", py, "PASSWORD = '{}'", p())
    add("python: raw-string secret key", py, 'SECRET_KEY = r"{}"', p())
    add("python: keyword argument", py, 'conn = connect(host="db", password="{}")', p())
    add("python: dict entry", py, 'SETTINGS = {{"client_secret": "{}"}}', p())
    add("python: annotated attribute", py, 'class Client:\n    api_key: str = "{}"', p())
    add("python: comparison", py, 'def ok(password):\n    return password == "{}"', p())
    add("python: comment temp pw", py, "# temp pw {}", p())
    add("python: comment password colon", py, "# password: {}", p())
    add("python: comment old key", py, "# old key was {}", p())
    add("python: docstring", py, 'def login():\n    """Log in with password={} on staging."""', p())
    add("python: basic auth tuple", py, 'r = get(url, auth=("admin", "{}"))', p())
    add("python: bearer header", py, 'HEADERS = {{"Authorization": "Bearer {}"}}', bearer)
    add("python: database URL", py, 'DATABASE_URL = "postgresql://app:{}@db.internal:5432/app"', p())
    add("python: connection string", py, 'CONN = "Server=sql;Database=app;User Id=sa;Password={};"', p())
    add("python: environ default", py, 'os.environ.setdefault("API_KEY", "{}")', p())
    add("python: slack webhook", py, 'WEBHOOK = "https://hooks.slack.com/services/{}"', f.slack_path())
    add("python: token kwarg", py, 'client = Client(token="{}")', p())
    add("python: query-string key", py, 'URL = "https://api.example.com/v1/data?format=json&api_key={}"', p())

    cs = "src/Billing/Secrets.cs"
    add("csharp: property initialiser", cs, '    public string Password {{ get; set; }} = "{}";', p())
    add("csharp: const api key", cs, '    private const string ApiKey = "{}";', p())
    add("csharp: verbatim secret", cs, '    private static readonly string ClientSecret = @"{}";', p())
    add("csharp: connection string", cs, '    var cs = "Server=.;Database=App;User Id=sa;Password={};";', p())
    add("csharp: azure storage AccountKey", cs,
        '    var storage = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};'
        'EndpointSuffix=core.windows.net";',
        azure_key)
    add("csharp: NetworkCredential", cs, '    var cred = new NetworkCredential("svc", "{}");', p())
    add("csharp: Authorization header", cs,
        '    client.DefaultRequestHeaders.Add("Authorization", "Bearer {}");', bearer[::-1])
    add("csharp: line comment", cs, "    // TODO remove: pwd={}", p())
    add("csharp: block comment", cs, "    /* password: {} */", p())
    add("csharp: options property", cs, '    options.ClientSecret = "{}";', p())
    add("csharp: local variable", cs, '    var password = "{}";', p())
    add("csharp: SAS signature", cs,
        '    var sas = "https://acct.blob.core.windows.net/c?sv=2020-08-04&ss=b&sig={}";', f.b64(30) + "%3D")
    add("csharp: dictionary entry", cs, '    config.Add("SmtpPassword", "{}");', p())

    sql = "db/admin.sql"
    add("sql: comment password", sql, "-- password: {}", p())
    add("sql: comment temp pw", sql, "-- temp pw {}", p())
    add("sql: block comment", sql, "/* pwd={} */", p())
    add("sql: CREATE LOGIN", sql, "CREATE LOGIN app_user WITH PASSWORD = '{}';", p())
    add("sql: ALTER LOGIN unicode", sql, "ALTER LOGIN sa WITH PASSWORD = N'{}';", p())
    add("sql: sp_addlogin", sql, "EXEC sp_addlogin 'reporter', '{}';", p())
    add("sql: SET variable", sql, "SET @pwd = '{}';", p())
    add("sql: DECLARE variable", sql, "DECLARE @password NVARCHAR(50) = '{}';", p())
    add("sql: connection string literal", sql,
        "INSERT INTO links (name, target) VALUES ('crm', 'Server=crm;User Id=app;Password={};');", p())
    add("sql: settings row", sql, "INSERT INTO config (name, value) VALUES ('smtp_password', '{}');", p())
    add("sql: UPDATE api key", sql, "UPDATE settings SET api_key = '{}' WHERE id = 1;", p())
    add("sql: IDENTIFIED BY", sql, "CREATE USER app IDENTIFIED BY '{}';", p())
    add("sql: scoped credential", sql,
        "CREATE DATABASE SCOPED CREDENTIAL c WITH IDENTITY = 'SHARED ACCESS SIGNATURE', SECRET = '{}';", p())
    add("sql: WHERE password", sql, "SELECT id FROM users WHERE password = '{}';", p())

    md = "README.md"
    add("markdown: export env", md, "```\nexport AWS_SECRET_ACCESS_KEY={}\n```", aws_secret[::-1])
    add("markdown: password= in prose", md, "Set password={} in the README before the demo.", p())
    add("markdown: password is", md, "The admin password is {} for now.", p())
    add("markdown: curl bearer", md, 'curl -H "Authorization: Bearer {}" https://api.example.com', f.alnum(36))
    add("markdown: curl basic user", md, "curl -u admin:{} https://api.example.com", p())
    add("markdown: list token", md, "- token: {}", p())
    add("markdown: table row", md, "| DB_PASSWORD | {} |", p())
    add("markdown: slack webhook", md, "Alerts go to https://hooks.slack.com/services/{}", f.slack_path())
    add("markdown: mysql url", md, "mysql://root:{}@localhost/db", p())
    add("markdown: API key colon", md, "API key: {}", p())
    add("markdown: json snippet", md, '    "clientSecret": "{}"', p())
    add("markdown: .env block", md, "```\nDB_PASS={}\nSTRIPE_SECRET={}\n```", p(), p())
    add("markdown: discord webhook", md, "https://discord.com/api/webhooks/123456789012345678/{}", f.alnum(60))
    add("markdown: teams webhook", md,
        "https://contoso.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}/{}",
        f.hex(36), f.hex(36), f.hex(32), f.hex(36))
    add("text: notes password", "docs/notes.txt", "prod db pwd: {}", p())
    add("text: passphrase", "docs/notes.txt", "passphrase = {}", p())
    add("rst: field", "docs/setup.rst", ":password: {}", p())

    add("yaml: password", "config/app.yaml", "db:\n  password: {}", p())
    add("yaml: quoted api key", "config/app.yaml", '  api_key: "{}"', p())
    add("yaml: secret single-quoted", "config/app.yaml", "  secret: '{}'", p())
    add("yaml: connection string", "config/app.yaml", '  connectionString: "Server=x;Password={}"', p())
    add("yaml: Authorization header", "config/app.yaml", "  Authorization: Basic {}", f.b64(28))
    add("toml: token", "config/app.toml", 'token = "{}"', p())
    add("toml: nested secret", "config/app.toml", '[oauth]\nclient_secret = "{}"', p())
    add("ini: pwd", "config/app.ini", "[db]\npwd={}", p())
    add("ini: AccountKey", "config/app.ini", "AccountKey={}", f.b64(86) + "==")
    add("cfg: password", "config/app.cfg", "[smtp]\npassword = {}", p())
    add("cfg: webhook url", "config/app.cfg", "hook = https://hooks.slack.com/services/{}", f.slack_path())
    return [Plant(shape, path, text, values) for shape, path, text, values in rows]


def _commit_plants(f: Fake) -> list[Plant]:
    p = f.password
    messages = [
        ("remove password={} from config", (p(),)),
        ("old key was {}", (p(),)),
        ("rotate token {}", ("gh" + "p_" + f.alnum(36),)),
        ("fix login; temp pw {}", (p(),)),
        ("AWS secret {} must go", (f.b64(40),)),
        ("smoke test with Authorization: Bearer {}", (f.alnum(40),)),
        ("alerts to https://hooks.slack.com/services/{}", (f.slack_path(),)),
        ("db url postgres://u:{}@host/db", (p(),)),
        ("set api_key={} for staging", (p(),)),
        ("stripe key {}", ("sk" + "_live_" + f.alnum(24),)),
        ("AccountKey={} leaked, rotated", (f.b64(86) + "==",)),
        ("the password is {}", (p(),)),
        ("secret: {}", (p(),)),
        ("add the deploy key\n\n{}", (f.private_key(),)),
        ("slack bot {}", (f.slack_bot(),)),
    ]
    return [Plant(f"commit: {template.split('{')[0].strip() or 'key'}", COMMIT, template.format(*values), values)
            for template, values in messages]


def _misses(f: Fake) -> list[Plant]:
    """Shapes redaction does not catch (named in README): no key name, no known shape."""
    words = "correct horse battery staple"
    return [
        # caught since issue 37's second round (lower-case words, none a prompt's): kept beside the misses
        Plant("python: quoted passphrase of words", "misses/a.py", f'password = "{words}"', (words,)),
        Plant("miss: letters-only password", "misses/a.py", 'PASSWORD = "dragonfly"', ("dragonfly",), caught=False),
        Plant("miss: high-entropy value under a neutral name", "misses/a.py",
              f'SEED = "{(seed := f.b64(40))}"', (seed,), caught=False),
        Plant("miss: positional SQL insert", "misses/b.sql",
              f"INSERT INTO users VALUES ('bob', '{(pw := f.password())}');", (pw,), caught=False),
        Plant("miss: key in an indexer", "misses/C.cs",
              f'config["Jwt:Key"] = "{(jwt_key := f.password())}";', (jwt_key,), caught=False),
    ]


def write_repository(root: Path, seed: int = 19, *, caught_only: bool = True) -> list[Plant]:
    """Lay the plants out as a git repository at `root` (files, then one commit per planted
    message); returns the plants written."""
    chosen = [p for p in plants(seed) if p.caught or not caught_only]
    files: dict[str, list[str]] = {}
    for plant in chosen:
        if plant.path != COMMIT:
            files.setdefault(plant.path, []).append(plant.text)
    root.mkdir(parents=True, exist_ok=True)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    for path, texts in sorted(files.items()):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_wrap(path, texts), encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "initial layout"], check=True)
    code = sorted(p for p in files if p.endswith(".py"))
    for n, plant in enumerate(p for p in chosen if p.path == COMMIT):
        target = root / code[n % len(code)]  # each message changes a definition, so history keeps it
        target.write_text(target.read_text(encoding="utf-8") + f"\n\ndef change_{n}():\n    return {n}\n",
                          encoding="utf-8")
        subprocess.run([*git, "commit", "-q", "-a", "-m", plant.text], check=True)
    return chosen


def _wrap(path: str, texts: list[str]) -> str:
    """A file of the plants that parses in its language (C# inside a class)."""
    if path.endswith(".cs"):
        body = "\n".join(t if t.startswith("    ") else f"    {t}" for t in texts)
        return ("namespace Planted\n{\npublic class Holder\n{\n    public void Load()\n    {\n"
                f"{body}\n    }}\n}}\n}}\n")
    return "\n\n".join(texts) + "\n"
