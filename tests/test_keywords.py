"""Keyword tokens for BM25: identifiers whole and in parts, words stemmed on both sides."""
from ragstream.keyword_tokens import identifier_parts, keyword_tokens


def test_identifiers_whole_and_in_parts():
    assert keyword_tokens("get_user_name") == ["get_user_name", "get", "user", "name"]
    assert keyword_tokens("getUserName") == ["getusername", "get", "user", "name"]
    assert keyword_tokens("HTTPAdapter") == ["httpadapter", "http", "adapt"]


def test_question_words_meet_code_words_through_their_stems():
    assert set(keyword_tokens("Improve application context popping")) >= set(keyword_tokens("def pop(self)")) - {"def", "self"}
    assert keyword_tokens("retried") == keyword_tokens("retry")
    assert keyword_tokens("cookies") == keyword_tokens("Cookie")
    assert "rais" in keyword_tokens("raise_for_status")  # the parts of an identifier are stemmed too


def test_stopwords_and_single_letters_are_dropped():
    assert keyword_tokens("the a of x") == []
    assert identifier_parts("parseHTTPResponse_v2") == ["parse", "http", "response", "v", "2"]
