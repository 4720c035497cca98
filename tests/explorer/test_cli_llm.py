"""The command line's LLM options, end to end (``reasoning-explorer`` run as a subprocess, a real HTTP server on
127.0.0.1): sampling and prompt options written into the model id, each ``--compare`` navigator with its own
prompt, and ``--cache`` / ``--no-cache``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

from .http_stub import Reply, StubServer

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
ENV = {"OPENAI_API_KEY": "sk-cli-llm-000111", "REASONING_EXPLORER_MAX_RETRIES": "0"}


def cli(*args: object, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**ENV, **(env or {})}, columns=None)  # type: ignore[return-value]


def answer(selected: list[str], rationale: str = "why") -> Reply:
    content = json.dumps({"selected": selected, "rationale": rationale})
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


def test_sampling_options_go_into_the_model_id_and_the_request(tmp_path: Path) -> None:
    with StubServer() as server:
        server.add(answer(["billing"]))
        walked = cli("walk", HANDBOOK, "refunds", "--navigator", "openai:test-model", "--temperature", "0.8",
                     "--seed", "3", "--top-p", "0.9", "--structured-output", "off", "--max-visits", "1", "--json",
                     env={"OPENAI_BASE_URL": server.url})
        assert walked.returncode == 0, walked.stderr
        (sent,) = [request.json() for request in server.requests]
    document = json.loads(walked.stdout)
    assert document["navigator"] == "openai:test-model@temperature=0.8,seed=3,top_p=0.9,schema=off"
    assert (sent["model"], sent["temperature"], sent["seed"], sent["top_p"]) == ("test-model", 0.8, 3, 0.9)
    assert "response_format" not in sent
    started = document["events"][0]
    assert started["model"] == "openai:test-model@temperature=0.8,seed=3,top_p=0.9,schema=off"


@pytest.mark.parametrize(("args", "message"), [
    (["--navigator", "lexical:default", "--temperature", "0.5"],
     "reasoning-explorer: error: --temperature: 'lexical:default' is not an LLM navigator; these options apply to "
     "openai:MODEL, ollama:MODEL, vllm:MODEL, local:MODEL"),
    (["--navigator", "openai:m", "--temperature", "5"],
     "reasoning-explorer: error: argument --temperature: temperature must be a number from 0 to 2, e.g. "
     "temperature=0.7 (see `reasoning-explorer walk --help`)"),
    (["--navigator", "openai:m@seed=1", "--seed", "2"],
     "reasoning-explorer: error: seed=2 is asked for twice, differently: the model id 'openai:m@seed=1' says "
     "seed=1; say it once"),
    (["--navigator", "openai:m", "--system-prompt", "/no/such/system.txt"],
     "reasoning-explorer: error: /no/such/system.txt: no such system prompt file; check the path"),
    (["--navigator", "openai:gpt-x@temperature=1.5,"],
     "reasoning-explorer: error: 'openai:gpt-x@temperature=1.5,': an empty option after the comma at character 29 "
     "(a comma too many?); write MODEL@key=value[,key=value...] (a value holding a comma, an @ or a quote, or "
     'with spaces around it, in double quotes: system="prompts/a,b.txt")'),
    (["--navigator", "openai:m@system=a@b.txt"],
     "reasoning-explorer: error: 'openai:m@system=a@b.txt': system=a@b.txt: a value holding '@' is written in "
     'double quotes: system="a@b.txt"'),
    (["--navigator", "openai:m", "--temperature", "1.5,"],
     "reasoning-explorer: error: argument --temperature: temperature must be a number from 0 to 2, e.g. "
     "temperature=0.7 (see `reasoning-explorer walk --help`)"),
])
def test_an_llm_option_that_cannot_apply_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    walked = cli("walk", HANDBOOK, "refunds", *args)
    assert (walked.returncode, walked.stderr.strip(), walked.stdout) == (2, message, "")


@pytest.mark.parametrize(("how", "special", "message"), [
    ("--system-prompt", "fifo", "{path}: a FIFO (named pipe), not a regular file; name a text file for the system "
                                "prompt"),
    ("@system=", "fifo", "{path}: a FIFO (named pipe), not a regular file; name a text file for the system prompt"),
    ("--prompt-template", "/dev/zero", "/dev/zero: a character device, not a regular file; name a text file for "
                                       "the prompt template"),
    ("@system=", "/dev/zero", "/dev/zero: a character device, not a regular file; name a text file for the system "
                              "prompt"),
])
def test_a_special_file_as_a_prompt_file_is_refused_at_once(tmp_path: Path, how: str, special: str,
                                                            message: str) -> None:
    """A FIFO with no writer would be waited on for ever, /dev/zero read until memory runs out (issue 30, 5)."""
    path = Path(special) if special.startswith("/") else tmp_path / special
    if not path.exists():
        os.mkfifo(path)
    args = ["--navigator", f"openai:m@system={path}"] if how == "@system=" else ["--navigator", "openai:m", how, path]
    walked = cli("walk", HANDBOOK, "refunds", *args, timeout=60)
    assert (walked.returncode, walked.stderr.strip(), walked.stdout) == (
        2, "reasoning-explorer: error: " + message.format(path=path), "")


def test_the_explorer_takes_the_same_options_and_refuses_them_the_same_way() -> None:
    opened = cli("--navigator", "semantic:hybrid", "--seed", "4")
    assert (opened.returncode, opened.stderr.strip()) == (
        2, "reasoning-explorer: error: --seed: 'semantic:hybrid' is not an LLM navigator; these options apply to "
           "openai:MODEL, ollama:MODEL, vllm:MODEL, local:MODEL")
    assert cli("--cache", str(HANDBOOK), "--navigator", "lexical:default").stderr.strip() == (
        f"reasoning-explorer: error: --cache {HANDBOOK}: not a folder; name a folder for the cache (it is made if "
        "need be)")


def test_the_cache_folder_from_the_environment_is_refused_as_cache_is() -> None:
    """A file named by $REASONING_EXPLORER_CACHE_DIR was taken, and nothing was cached (issue 30, point 9)."""
    said = (f"reasoning-explorer: error: REASONING_EXPLORER_CACHE_DIR={HANDBOOK}: not a folder; name a folder for "
            "the cache (it is made if need be)")
    environment = {"REASONING_EXPLORER_CACHE_DIR": str(HANDBOOK)}
    opened = cli("--navigator", "lexical:default", env=environment)
    walked = cli("walk", HANDBOOK, "refunds", "--navigator", "openai:m", env=environment)
    assert (opened.returncode, opened.stderr.strip()) == (2, said)
    assert (walked.returncode, walked.stderr.strip(), walked.stdout) == (2, said, "")
    assert cli("walk", HANDBOOK, "refunds", "--no-cache", env=environment).returncode == 0  # the flag wins


def test_cache_dir_wins_over_the_environments_cache_folder_that_is_a_file(tmp_path: Path) -> None:
    """The option is the command's own folder: the user's variable is not read, even where it names a file (it
    refused the navigator before any walk)."""
    with StubServer() as server:
        server.add(answer(["billing"]))
        walked = cli("walk", HANDBOOK, "refunds", "--navigator", "openai:test-model", "--max-visits", "1",
                     "--cache", tmp_path / "cache", "--json",
                     env={"OPENAI_BASE_URL": server.url, "REASONING_EXPLORER_CACHE_DIR": str(HANDBOOK)})
        assert (walked.returncode, walked.stderr) == (0, "")
        assert len(server.requests) == 1
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 1  # cached where the option says


def test_eval_compare_ab_tests_two_prompts_each_navigator_with_its_own(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Prompt A: choose sections.")
    b.write_text("Prompt B: choose sections carefully.")
    questions = tmp_path / "one.questions.yaml"
    questions.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - id: q1\n    query: refunds\n    expect: [billing]\n")
    with StubServer() as server:
        server.add(answer(["billing"]), answer(["accounts"]))
        evaluated = cli("eval", questions, "--navigator", "openai:test-model", "--system-prompt", a,
                        "--compare", f"openai:test-model@system={b}", "--max-visits", "1", "--json",
                        env={"OPENAI_BASE_URL": server.url})
        assert evaluated.returncode == 0, evaluated.stderr
        systems = [request.json()["messages"][0]["content"] for request in server.requests]
    assert systems == ["Prompt A: choose sections.", "Prompt B: choose sections carefully."]
    document = json.loads(evaluated.stdout)
    assert document["navigator"] == f"openai:test-model@system={a}"
    assert [r["landed"] for r in document["results"]] == [["billing"]]


def test_eval_compare_names_each_side_by_its_label_and_its_files_in_the_detail(tmp_path: Path) -> None:
    """A side asked with a prompt variant reads as the model with its variant (``with prompt v2``); the whole id,
    its files' paths, comes after, as the evaluation screen and --against say them."""
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "v2.system.txt").write_text("Think of money.")
    (folder / "v2.prompt.txt").write_text("Query: {{query}}\n{{candidates}}")
    variant = f"openai:test-model@system={folder / 'v2.system.txt'},prompt={folder / 'v2.prompt.txt'}"
    questions = tmp_path / "one.questions.yaml"
    questions.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - id: q1\n    query: refunds\n    expect: [billing]\n")
    with StubServer() as server:
        server.add(answer(["billing"]), answer(["accounts"]))
        evaluated = cli("eval", questions, "--navigator", "openai:test-model", "--compare", variant,
                        "--max-visits", "1", env={"OPENAI_BASE_URL": server.url})
    assert evaluated.returncode == 0, evaluated.stderr
    lines = evaluated.stdout.splitlines()
    start = lines.index("Compared: A openai:test-model · B openai:test-model with prompt v2")
    assert lines[start + 4:start + 6] == [
        "1 question(s) where they differ (✓ hit, ✗ miss; what each landed):",
        "  q1  only A hits         A ✓ billing · B ✗ accounts"]
    assert "".join(lines[start + 6:]) == f"B: {variant}"  # the detail (folded where the terminal is narrow)


def test_cache_makes_the_second_walk_free_and_no_cache_asks_again(tmp_path: Path) -> None:
    cache = tmp_path / "answers"
    with StubServer() as server:
        server.add(answer(["billing"], "first"), answer(["support"], "second"), answer(["plans"], "third"))
        runs = [cli("walk", HANDBOOK, "refunds", "--navigator", "openai:test-model", "--max-visits", "1", "--json",
                    *extra, env={"OPENAI_BASE_URL": server.url})
                for extra in (["--cache", cache], ["--cache", cache], ["--no-cache"])]
        assert [run.returncode for run in runs] == [0, 0, 0], [run.stderr for run in runs]
        assert len(server.requests) == 2
    landed = [json.loads(run.stdout)["summary"]["landed"] for run in runs]
    assert landed == [["billing"], ["billing"], ["support"]]
    chose = [next(e for e in json.loads(run.stdout)["events"] if e["event"] == "navigator_chose") for run in runs]
    assert [dict(map(tuple, e["transcript"])).get("answered", "live").split(":")[0] for e in chose] == [
        "live", "cached", "live"]
    assert len(list(cache.rglob("*.json"))) == 1
