"""Secret shapes that leaked in a review by someone outside the team (issue 37), one instance of
each class written here (the external corpora themselves are measured by
benchmarks/secret_corpora.py, not copied). Values are assembled at run time, so no
secret-looking literal sits in the repository."""
from __future__ import annotations

import base64
import json

import pytest

from ragstream.redact import REDACTED, redact

PW = "Zq8" + "vR2mLp0xT"  # a password-policy-shaped value
B64 = base64.b64encode(b"k8s-" + b"secret-value-91x").decode()  # ends in '='
B64_PAD2 = base64.b64encode(b"tok-" + b"3f9a1c").decode()  # ends in '=='
LONG = ("Qm9" + "xT1") * 160  # 960 characters, no spaces
GHP = "gh" + "p_" + "Kx7d" * 9
JWT_SPACE = ".".join(base64.urlsafe_b64encode(part.encode()).decode().rstrip("=") for part in (
    '{ "alg": "HS256", "typ": "JWT" }', '{ "sub": "' + "u19x" * 3 + '" }', "sig" + "N7q" * 12))
WHSEC = "whs" + "ec_" + "Pp4mW9" * 6
PEM_BODY = "\n".join(("MIIEo" + "wIBAAKCAQEA" + "x7Rt" * 12)[:64] for _ in range(3))
PEM_HEAD = "-----BEGIN RSA " + "PRIVATE KEY-----"
PEM_FULL = f"{PEM_HEAD}\n{PEM_BODY}\n-----END RSA " + "PRIVATE KEY-----\n"
DOCKER_AUTH = base64.b64encode(b"bot:" + PW.encode()).decode()
DOCKERCONFIG = base64.b64encode(json.dumps({"auths": {"registry.example.com": {
    "username": "bot", "password": PW, "auth": DOCKER_AUTH}}}).encode()).decode()

# (file type, text, the values that must be gone)
SHAPES = [
    ("yaml block scalar", "text", f"db:\n  password: |\n    {PW}\n  host: db\n", [PW]),
    ("yaml folded scalar", "text", f"db:\n  password: >-\n    {PW}\n", [PW]),
    ("yaml anchor", "text", f"defaults:\n  password: &pw {PW}\nprod:\n  password: *pw\n", [PW]),
    ("yaml tag", "text", f"db:\n  password: !!str {PW}\n", [PW]),
    ("value ending ==", "text", f"apiVersion: v1\nkind: Secret\ndata:\n  api-token: {B64_PAD2}\n", [B64_PAD2]),
    ("value ending =", "text", f"data:\n  password: {B64}\n", [B64]),
    ("value over 400 characters", "text", f"session_token: {LONG}\n", [LONG[:40], LONG[-40:]]),
    ("quoted value over 400 characters", "python", f'SESSION_TOKEN = "{LONG}"\n', [LONG[:40], LONG[-40:]]),
    ("libpq DSN", "python", f'conn = psycopg2.connect("host=db port=5432 dbname=app user=app password={PW} '
                            'sslmode=require")\n', [PW]),
    ("JSON escaped in a Python string", "python", f'body = "{{\\"user\\":\\"app\\",\\"password\\":\\"{PW}\\"}}"\n',
     [PW]),
    ("JSON escaped in a C# string", "csharp", f'var body = "{{\\"apiKey\\": \\"{PW}\\"}}";\n', [PW]),
    ("ODBC PWD in braces", "csharp",
     f'var cs = "Driver={{ODBC Driver 18 for SQL Server}};Server=db;UID=app;PWD={{{PW};x}}";\n', [PW]),
    ("T-SQL sp_addlinkedsrvlogin positional", "sql",
     f"EXEC sp_addlinkedsrvlogin 'REMOTE', 'false', NULL, 'sa', '{PW}';\n", [PW]),
    ("T-SQL sp_addlinkedsrvlogin named", "sql",
     f"EXEC master.dbo.sp_addlinkedsrvlogin @rmtsrvname = N'REMOTE', @useself = N'False', "
     f"@locallogin = NULL, @rmtuser = N'sa', @rmtpassword = N'{PW}';\n", [PW]),
    ("URL password with / and @", "text", "DATABASE_URL=postgres://app:" + "Zq8/vR2@mLp0" + "@db.internal:5432/app\n",
     ["Zq8/vR2@mLp0", "vR2@mLp0"]),
    ("token after \\n in a string literal", "python", f'MESSAGE = "deploy with\\n{GHP}\\nthen restart"\n', [GHP]),
    ("JWT whose payload starts eyA", "text", f"Authorization header sample: {JWT_SPACE}\n",
     [JWT_SPACE.split(".")[1]]),
    ("Stripe webhook secret", "python", f'endpoint = "{WHSEC}"\n', [WHSEC]),
    ("token split over two literals", "python", f'TOKEN = "{GHP[:12]}" + "{GHP[12:]}"\n', [GHP[12:]]),
    ("token split over implicit concatenation", "python", f'client = Github(("{GHP[:10]}"\n    "{GHP[10:]}"))\n',
     [GHP[10:]]),
    ("redis --requirepass", "text", f"command: redis-server --appendonly yes --requirepass {PW}\n", [PW]),
    ("mysql -p", "text", f"mysql -h db -u root -p{PW} app < dump.sql\n", [PW]),
    ("sshpass -p", "text", f"sshpass -p '{PW}' ssh deploy@host\n", [PW]),
    ("prose credentials pair", "text", f"The staging credentials are `admin` / `{PW}`.\n", [PW]),
    ("German password sentence", "text", f"Das Passwort lautet {PW} für den Server.\n", [PW]),
    ("French password sentence", "text", f"Le mot de passe est {PW} pour la base.\n", [PW]),
    ("Spanish password sentence", "text", f"La contraseña es {PW} en producción.\n", [PW]),
    ("Cookie header", "text", "curl -H 'Cookie: sessionid=" + "a8Fq2Lx9Zr7Kp3Wm" + "; csrftoken=" + "Tn5Vb8Hj2Qe6" +
     "' https://example.com\n", ["a8Fq2Lx9Zr7Kp3Wm", "Tn5Vb8Hj2Qe6"]),
    ("PEM block with no END line", "text", f"key: |\n  {PEM_HEAD}\n  " + PEM_BODY.replace("\n", "\n  ") + "\n\nnext: 1\n",
     PEM_BODY.split("\n")),
    ("base64-encoded PEM", "text", "data:\n  tls.key: " + base64.b64encode(PEM_FULL.encode()).decode() + "\n",
     [base64.b64encode(PEM_FULL.encode()).decode()[20:80]]),
    (".dockerconfigjson", "text", f"data:\n  .dockerconfigjson: {DOCKERCONFIG}\n", [DOCKERCONFIG[10:60]]),
    ("docker auth in plain JSON", "text", json.dumps({"auths": {"r.example.com": {"auth": DOCKER_AUTH}}}),
     [DOCKER_AUTH]),
    ("high-entropy value under a secret-named key", "text", "signing_secret = " + "p9Xk2mQ7vL4tR8wZ\n",
     ["p9Xk2mQ7vL4tR8wZ"]),
    ("long digits under a token name", "text", "asana_token: " + "1323021822437151\n", ["1323021822437151"]),
    ("dotted token under a token name", "text", "harness_token: pat." + "gsf1ckvfhz.rmu2nxm13uri40bmck\n",
     ["gsf1ckvfhz.rmu2nxm13uri40bmck"]),
    ("XML element holding a token", "text", "<apiToken>\n    " + "dd0tpj8edyzhsn4vkxhl1bgq2" + "\n</apiToken>\n",
     ["dd0tpj8edyzhsn4vkxhl1bgq2"]),
    ("JSON in a C# verbatim string", "csharp", f'var body = @"{{""password"": ""{PW}""}}";\n', [PW]),
    ("JSON escaped twice", "python", f'raw = "{{\\\\\\"token\\\\\\": \\\\\\"{PW}\\\\\\"}}"\n', [PW]),
    ("Cookie in a headers dict", "python", 'headers = {"Cookie": "session=' + "a8Fq2Lx9Zr7Kp3Wm" + '"}\n',
     ["a8Fq2Lx9Zr7Kp3Wm"]),
    ("token after a URL-encoded character", "text", f"https://ci.example.com/hook?msg=deploy%20{GHP}\n", [GHP]),
    ("redis-cli -a", "text", f"redis-cli -h cache -a {PW} ping\n", [PW]),
    ("docker login -p", "text", f"docker login -u bot -p {PW} registry.example.com\n", [PW]),
    ("PHP .= assignment", "text", '$apiToken .= "' + "q7ueyar3wdh7p0s0xs0tvcads" + '";\n', ["q7ueyar3wdh7p0s0xs0tvcads"]),
]


@pytest.mark.parametrize("shape, language, text, secrets", SHAPES, ids=[s[0] for s in SHAPES])
def test_shape_is_redacted(shape, language, text, secrets):
    clean, fired = redact(text, language)
    assert fired and REDACTED in clean, clean
    for secret in secrets:
        assert secret not in clean, clean
    assert clean.count("\n") == text.count("\n")  # line spans stay exact
    assert redact(clean, language)[0] == clean  # a second pass changes nothing


KEPT = [
    ("the documented AWS example key", "text", "aws_access_key_id = " + "AKIAIOSFODNN7" + "EXAMPLE\n"),
    ("a kwarg in a call", "python", "connect(host=host, password=password, sslmode='require')\n"),
    ("a URL with a port and a path", "text", "see https://example.com:8443/a/b@c for details\n"),
    ("a public certificate in base64", "text",
     "tls.crt: " + base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB" + b"x" * 60).decode() + "\n"),
    ("a cookie explained in prose", "text", "Cookie: the header the browser sends back.\n"),
    ("a password flag reading a file", "text", "pg_dump --password-file /run/secrets/pg app\n"),
    ("a YAML block scalar under a plain key", "text", "description: |\n  Stores the password hash.\n"),
    ("a dotted reference", "python", 'token = "settings.auth.api_token"\n'),
    ("a port number under a key", "text", "redis_password_port: 6379\n"),
]


@pytest.mark.parametrize("shape, language, text", KEPT, ids=[s[0] for s in KEPT])
def test_look_alike_is_kept(shape, language, text):
    assert redact(text, language) == (text, [])
