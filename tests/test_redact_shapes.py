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

# Issue 37, second round: instances of the classes the scanners' corpora showed missing (general
# mechanisms, not their values): a random value, a product key and some bytes of each shape.


def cat(*parts: str) -> str:
    """Parts joined at run time, so that no secret-shaped literal (joined or not) sits in the source."""
    return "".join(parts)


RND = cat("Hq7", "xT2vLp9", "mZ4kW8rN")  # 18 characters of mixed case and digits
UUID = cat("3f0c9a", "e2-7b41-4c8d-9e15-", "6a2b8c0d4f71")
PRODUCT_KEY = cat("QWRTP-", "ZXCVB-MNBVC-", "LKJHG-POIUY")
DER_KEY = base64.b64encode(bytes([0x30, 0x82, 0x01, 0x3b, 0x02, 0x01, 0x00, 0x02, 0x41, 0x00])
                           + bytes(range(7, 250, 3))).decode()
DER_CERT = base64.b64encode(bytes([0x30, 0x82, 0x01, 0x3b, 0x30, 0x82, 0x01, 0x20]) + bytes(range(7, 250, 3))).decode()
CONFIG_B64 = base64.b64encode(f"debug: true\nidentity:\n  password: {PW}\n  user: bot\n".encode()).decode()
PLAIN_B64 = base64.b64encode(b"debug: true\nidentity:\n  issuer: https://login.example.com/\n  retries: 3\n").decode()
SNOWFLAKE = base64.b64encode(b"812734659013267489").decode().rstrip("=")
BOT_TOKEN = cat(SNOWFLAKE, ".Gh7K2q.", "Zr8", "wQ3xLp0vT5nY2mK9bD4cF7hJ1sA6e")
ATLASSIAN_PAT = base64.b64encode(b"537184920615:" + bytes(range(40, 60))).decode()
JWT_UNSIGNED = ".".join(base64.urlsafe_b64encode(part.encode()).decode().rstrip("=") for part in (
    '{"alg":"HS256","typ":"JWT"}', cat('{"sub":"', "u19x" * 3, '","role":"admin"}')))
R16 = cat("Hq7xT2vLp9", "mZ4kW8")
VENDOR = [  # (vendor, a token of its published shape)
    ("SonarQube", cat("sq", "u_", "3fa9" * 10)), ("Supabase", cat("sb", "p_", "0e7c" * 10)),
    ("Vercel", cat("vc", "p_", R16 * 3, "rN3bQ5sD")), ("xAI", cat("xa", "i-", R16 * 5)),
    ("Together", cat("tg", "p_v1_", R16, "rN3bQ5sD-", R16, "rN")),
    ("Tavily", cat("tv", "ly-", R16, "rN3bQ5sD4kW8rN3b")),
    ("NATS seed", cat("SU", "AB", "CD2345EFGH67" * 4, "IJKLMN")),
    ("Dropbox", cat("s", "l.", cat("Bq7xT2vLp9", "mZ4kW8-") * 5)),
    ("Facebook app token", cat("152719", "4624358273|", "qbBf2-fdB9zZpqLA0_2nNzZDw2M")),
    ("Twitter bearer", cat("A" * 21, "MLheAAAAAAA0%2BeiuSd%2BUaLvse4JtiiSGRDISJS%3DEiUifRGBkE2XK5z")),
    ("Azure identifiable key", cat(R16, "rN3b", R16, "rN3b", "Q5sD4kW8rN3b", "JQQJ", "99", "ALACAAAAAAAAAAAAASAZDO1e4d")),
    ("Mailgun", cat("a25a4ac6" * 4, "-432f2836-", "db15b420")),
    ("Mailchimp", cat("LRINSm5Vdi9BMCzCWSJ8M3TMysUHwDzB", "-us", "36")),
    ("Notion", cat("nt", "n_", "123465789", "l62YMNJKXLKpjiCVEXbx4CBxkfprOA96Y15wZ")),
    ("Heroku", cat("HR", "KU-", "f1274537-88fb-4a2e-b0da-453bd9a496ef")),
    ("GitHub app installation", cat("gh", "s_", "20260523_", JWT_UNSIGNED)),
    ("Clojars", cat("CLOJ", "ARS_", "0e7c" * 15)), ("WunderGraph", cat("cos", "mo_", "69b9f425" * 4)),
    ("Defined Networking", cat("dn", "key-", "TUMPCCPBPZCE244YV67IYOWZ7W-",
                               "HBMEHZFHADYXANYUR72YCQWGBWPU2K232PKSZGTADUWVNHO4UEKZ")),
    ("Akamai", cat("ak", "ab-", "tblc7jkffv3wfxh3-", "h5stbzeswb3v4kj3")),
    ("Amazon MWS", cat("amzn", ".mws.", "c1dg4haz-6xd6-4gqi-vna2-", "ed3whf71x9k6")),
    ("Postman", cat("PM", "AT-", "9GP54SGZ7TS928P0BW1K3AN0WX")),
    ("TestPyPI", cat("py", "pi-", "AgENdGVzdC5weXBpLm9yZw", "Ik" * 30)),
    ("NTLM response", cat("TlRMTVNTUAAD", "AAAAGAAYAFYAAAAYABgAbgAAAAAAAABIAAAADgAOAEgAAAAAAAAAVgAAAA")),
    ("Flutterwave secret key", cat("FLWSECK", "_TEST-", "a901bb999734f52321a04f1906a87d43", "-X")),
]

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
    # issue 37, second round: key-name families
    ("abbreviated password key", "text", f"DB_PSWD:={PW}\n", [PW]),
    ("misspelt password key", "python", f'if pasword == "{PW}":\n    pass\n', [PW]),
    ("plural password key", "text", f"passwords: {PW}\n", [PW]),
    ("password fused into a name", "text", f"SMTPPASS={PW}\n", [PW]),
    ("random value under a *_key name", "python", f'billing_key = "{RND}"\n', [RND]),
    ("UUID under a *_key name", "text", f"license_key: {UUID}\n", [UUID]),
    ("product key after 'activation key'", "text", f"Activation key : {PRODUCT_KEY}\n", [PRODUCT_KEY]),
    ("random value under *_api", "text", f'payments_api = "{RND}"\n', [RND]),
    # value shapes and assignment syntaxes of other languages
    ("value with braces that is no template", "python", 'password = "q{{w}e)r${t]y' + '(u[iop>-_$#z}}"\n',
     ["q{{w}e)r${t]y(u[iop>-_$#z}}"]),
    ("C array declaration", "text", f'char secret[32] = "{PW}";\n', [PW]),
    ("key and quoted value with no operator", "csharp", f'SET password "{PW}";\n', [PW]),
    ("value compared first", "python", f'if ("{PW}" == admin_password):\n    pass\n', [PW]),
    ("literal continued over lines", "python", f"api_token = '{RND}\\\n{RND[::-1]}'\n", [RND, RND[::-1]]),
    ("triple-quoted literal over lines", "python", f'client_secret = """{RND}\n{RND[::-1]}"""\n', [RND, RND[::-1]]),
    ("prose value holding brackets", "text", f"secret = x{{{{a}}b)c${{d]{PW}\n", [PW]),
    ("quoted passphrase", "python", 'passphrase = "orbit lantern quiet mosaic"\n', ["orbit lantern quiet mosaic"]),
    ("label with a qualifier in prose", "text", f"password for the staging box: {PW}\n", [PW]),
    ("default of getenv", "python", f'DB_PASSWORD = os.getenv("DB_PASSWORD", "{PW}")\n', [PW]),
    ("fallback after or", "python", f'secret = os.environ.get("S") or "{PW}"\n', [PW]),
    ("setting constant and value as arguments", "text", f'curl_easy_setopt(h, CURLOPT_PASSWORD, "{PW}");\n', [PW]),
    ("user:password under a *PWD setting", "text", f'curl_easy_setopt(h, CURLOPT_USERPWD, "bot:{PW}");\n', [PW]),
    ("byte array under a key name", "csharp",
     "static readonly byte[] HmacKey = new byte[] { " + ", ".join(f"0x{b:02x}" for b in range(0x31, 0x45)) + " };\n",
     [", ".join(f"0x{b:02x}" for b in range(0x31, 0x45))]),
    ("JSON Web Key private member", "text", '{"kty": "RSA", "n": "AQAB", "d": "' + RND * 2 + '"}\n', [RND * 2]),
    ("PowerShell ConvertTo-SecureString", "text", f'$p = ConvertTo-SecureString "{PW}" -AsPlainText -Force\n', [PW]),
    ("MySQL IDENTIFIED WITH a plugin", "sql",
     f"ALTER USER 'app'@'%' IDENTIFIED WITH caching_sha2_password BY '{PW}';\n", [PW]),
    ("NTLM Authorization header", "text", "Authorization: NTLM " + "TlRMTVNTUAAB" + RND + "==\n", [RND]),
    ("curl --user with an e-mail", "text", f"curl --user ops@example.com:{PW} https://api.example.com\n", [PW]),
    ("URL with an e-mail as the user", "text", f"smtps://ops@example.com:{PW}@smtp.example.com:465\n", [PW]),
    ("sqlcmd -U then -P", "text", f"sqlcmd -S db -U sa -P {PW} -i init.sql\n", [PW]),
    ("bcp -P then -U", "text", f'bcp dbo.t out t.dat -S db -P "{PW}" -U sa\n', [PW]),
    ("net use /user: and a password", "text", f"net use \\\\srv\\share /user:corp\\bob {PW}\n", [PW]),
    ("Markdown table with a password column", "text",
     f"| user | password |\n|---|---|\n| admin | {PW} |\n| ops | `{RND}` |\n", [PW, RND]),
    ("CSV with a password column", "text", f"username,password,role\nadmin,{PW},owner\n", [PW]),
    ("'is:' between a key and its value", "text", f"The password is: {PW}\n", [PW]),
    ("URL-encoded query", "text", f"https://h.example.com/cb?next=%2Fhome%26token%3D{RND}%26v%3D2\n", [RND]),
    # encodings
    ("HTML entities around a value", "text", f'<p title="password: &quot;{PW}&quot;">\n', [PW]),
    ("escaped tabs and quotes in a literal", "text", f'"#define\\tpassword\\t\\"{PW}\\""\n', [PW]),
    ("base64 of a config holding a password", "text", f"config: {CONFIG_B64}\n", [CONFIG_B64[:40]]),
    ("DER private key with no armour", "text", f"<data>\n  {DER_KEY[:64]}\n  {DER_KEY[64:]}\n</data>\n",
     [DER_KEY[:64], DER_KEY[64:]]),
    ("token after a colour code", "text", f"\x1b[93m{GHP}\x1b[0m\n", [GHP]),
    # token shapes checked by structure rather than by a name nearby
    ("bot token whose first part is a base64 id", "text", f"{BOT_TOKEN}\n", [BOT_TOKEN]),
    ("Atlassian personal access token", "text", f"jira: {ATLASSIAN_PAT}\n", [ATLASSIAN_PAT]),
    ("JWT with no signature", "text", f"{JWT_UNSIGNED}\n", [JWT_UNSIGNED]),
    ("private key armour with any body", "text", f"{PEM_HEAD}\nnot base64 at all\n", ["not base64 at all"]),
    *[(f"{vendor} token", "text", f"value: {token}\n", [token]) for vendor, token in VENDOR],
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
    # issue 37, second round: what the new mechanisms must leave alone
    ("a public key", "python", f'public_key = "{RND}"\n'),
    ("a record's key", "python", f'cache_key = "{RND}"\n'),
    ("an alphabet under a key name", "python",
     'keyChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"\n'),
    ("a version under an api name", "text", "event-bus-api:rc1.2.0_20240101-SNAPSHOT\n"),
    ("a collection of secrets", "text", "keyVaultToStoreSecrets: cmp2-qat-1208358310\n"),
    ("an e-mail under a key", "text", '"key": "ops.team@example.com"\n'),
    ("a word in brackets after a token", "python", "# the match must start a token (`_starts_token`)\n"),
    ("phrases in a tuple", "python", 'QUESTIONS = ("hidden runbook master password", "finance open invoices report")\n'),
    ("a prompt under a password name", "python", 'password = "please enter a new password"\n'),
    ("a variable given to ConvertTo-SecureString", "text", "ConvertTo-SecureString $plain -AsPlainText -Force\n"),
    ("curl with variables", "text", "curl -u $USER:$PASS https://api.example.com\n"),
    ("HTML entities in text", "text", "<p>Tom &amp; Jerry &quot;cartoon&quot;</p>\n"),
    ("base64 of a config with no secret", "text", f"config: {PLAIN_B64}\n"),
    ("a DER certificate in base64", "text", f"cert: {DER_CERT}\n"),
    ("a compared value under a plain name", "python", 'if (mode == "production-eu-west-1"):\n    pass\n'),
    ("mysql -p prompting, then the database", "text", "mysql -u root -p app_db2 < dump.sql\n"),
    ("a -p flag that is a port", "text", "ssh -p 2222 -u deploy host\n"),
    ("a table whose secret column holds words", "text", "| Name | Token |\n|---|---|\n| ci | see vault |\n"),
    ("a function's parameters over a call", "python", "def f(password, user):\n    return g(a, b)\n"),
    ("a getenv default under a plain name", "python", 'HOST = os.getenv("HOST", "db.internal.example")\n'),
]


@pytest.mark.parametrize("shape, language, text", KEPT, ids=[s[0] for s in KEPT])
def test_look_alike_is_kept(shape, language, text):
    assert redact(text, language) == (text, [])
