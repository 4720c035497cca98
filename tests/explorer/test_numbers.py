"""``numbers.whole``, the one parser of whole numbers, and the numbers that go through it: typed, from the
environment, in a model id's options, sent to ``serve`` by a client. Each caller says a bad value its own way,
in one line, and takes exactly the values ``whole`` takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.cli.serve import size_asked
from explorer.navigators import NavigatorConfigError
from explorer.navigators.llm.errors import NavigatorHTTPError
from explorer.navigators.llm.options import MAX_SEED, OptionError, split_options
from explorer.navigators.llm.settings import MAX_RETRIES_ENV, limits
from explorer.navigators.local_model import CTX_ENV, PORT_ENV, server_config
from explorer.numbers import TooLarge, counted, whole

BAD = ["1e3", "٣", "²", "1_000", "4.0", "0x10", "", " ", "ten", "9" * 5000]
"""Not one of them is a whole number to ``whole`` (Unicode digits, exponents, underscores, hex, blank)."""


@pytest.mark.parametrize(("text", "message"), [
    ("0", "0 must be at least 1"),
    ("-5", "-5 must be at least 1"),
    ("101", "101 must be at most 100"),
    ("9" * 5000, "9999999999999999999… must be at most 100"),
    ("٣", "'٣' is not a whole number"),
    ("1e3", "'1e3' is not a whole number"),
], ids=lambda v: str(v)[:24])
def test_whole_says_which_bound_a_number_broke(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        whole(text, 1, 100)
    assert str(caught.value) == message


def test_above_the_maximum_is_too_large_and_nothing_else_is() -> None:
    for text in ("101", "+101", "9" * 40, "0" * 11 + "101"):
        with pytest.raises(TooLarge):
            whole(text, 1, 100)
    for text in ("0", "-7", "-" + "9" * 40, "٣", "1e3"):
        with pytest.raises(ValueError) as caught:
            whole(text, 1, 100)
        assert type(caught.value) is ValueError, text
    with pytest.raises(TooLarge, match=r"^65536 is not a port number \(1-65535\)$"):
        whole("65536", 1, 65_535, "a port number")
    with pytest.raises(ValueError, match=r"^0 is not a port number \(1-65535\)$"):
        whole("0", 1, 65_535, "a port number")


def test_a_maximum_of_nineteen_digits_is_read_whole() -> None:
    assert whole(str(MAX_SEED), 0, MAX_SEED) == MAX_SEED
    assert whole("0" + str(MAX_SEED), 0, MAX_SEED) == MAX_SEED
    with pytest.raises(TooLarge, match="must be at most 9,223,372,036,854,775,807"):
        whole(str(MAX_SEED + 1), 0, MAX_SEED)


# -- a model id's options ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [*BAD, "-1", "255", "1048577"], ids=lambda v: str(v)[:24])
def test_a_bad_ctx_option_is_the_options_one_line_for_every_value_whole_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        whole(text, 256, 1_048_576)
    with pytest.raises(OptionError) as caught:
        split_options(f"local:smollm2@ctx={text}")
    assert str(caught.value) == f"ctx={text.strip()}: ctx must be a whole number from 256 to 1,048,576, e.g. ctx=4096"


@pytest.mark.parametrize("text", ["٣", "1e3", "-1", str(MAX_SEED + 1)], ids=lambda v: str(v)[:24])
def test_a_bad_seed_option_says_the_seeds_range(text: str) -> None:
    with pytest.raises(OptionError) as caught:
        split_options(f"openai:m@seed={text}")
    assert str(caught.value) == f"seed={text}: seed must be a whole number from 0 to 9,223,372,036,854,775,807, e.g. seed=7"


@pytest.mark.parametrize(("text", "value"), [("4096", 4096), ("0256", 256), ("1048576", 1_048_576)], ids=lambda v: str(v)[:24])
def test_a_ctx_option_whole_takes_is_the_number_whole_reads(text: str, value: int) -> None:
    assert split_options(f"local:smollm2@ctx={text}").options.ctx == whole(text, 256, 1_048_576) == value


# -- the environment --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["1e3", "٣", "1_000", "ten", "99999999999999999999999", "255"], ids=lambda v: str(v)[:24])
def test_a_bad_local_model_variable_is_its_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                      text: str) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setenv(CTX_ENV, text)
    with pytest.raises(NavigatorConfigError) as caught:
        server_config(f"local:{gguf}")
    assert str(caught.value) == f"REASONING_EXPLORER_LOCAL_CTX must be a whole number from 256 to 1,048,576, got {text!r}"
    monkeypatch.setenv(CTX_ENV, " 2048 ")
    monkeypatch.setenv(PORT_ENV, "65536")
    with pytest.raises(NavigatorConfigError) as caught:
        server_config(f"local:{gguf}")
    assert str(caught.value) == "REASONING_EXPLORER_LOCAL_PORT must be a whole number from 0 to 65,535, got '65536'"


@pytest.mark.parametrize("text", ["1e3", "٣", "²", "1_000", "-1", "2.5", "9" * 5000], ids=lambda v: str(v)[:24])
def test_a_bad_count_variable_is_its_one_line(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(MAX_RETRIES_ENV, text)
    with pytest.raises(NavigatorHTTPError) as caught:
        limits()
    assert str(caught.value) == f"REASONING_EXPLORER_MAX_RETRIES must be a whole number, 0 or more (e.g. 3), got {text!r}"
    monkeypatch.setenv(MAX_RETRIES_ENV, "007")
    assert limits().max_retries == 7


# -- a served client's values -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "size"), [
    (None, 80), ("120", 120), ("+120", 120), ("0", 80), ("-3", 80), ("٣", 80), ("1e3", 80), ("", 80),
    ("201", 200), ("9" * 5000, 200), ("+9999", 200),
], ids=lambda v: str(v)[:24])
def test_a_served_clients_size_is_whole_within_the_limit_else_the_limit_or_the_default(text: str | None,
                                                                                     size: int) -> None:
    assert size_asked(text, 80, 200) == size


def test_counted_says_one_without_the_plural_and_groups_large_figures_when_asked():
    assert [counted(n, "node") for n in (0, 1, 2, 100000)] == ["0 nodes", "1 node", "2 nodes", "100000 nodes"]
    assert [counted(n, "node", grouped=True) for n in (1, 100000)] == ["1 node", "100,000 nodes"]
