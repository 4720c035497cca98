"""A whole LLM walk, from the command line, against a real local server: the saved trace replays for free
and never holds the API key."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.command_line import run_cli
from tests.samples import SAMPLES

from ..http_stub import Reply, StubServer

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
KEY = "sk-test-TRACE-SECRET-987654"


def answer(selected: list[str], rationale: str) -> Reply:
    content = json.dumps({"selected": selected, "rationale": rationale})
    return Reply(200, {"id": "c1", "object": "chat.completion", "model": "test-model",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})


def cli(*args: object, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, columns=None)  # type: ignore[return-value]


def test_an_llm_walk_saved_as_a_trace_replays_without_the_server_and_holds_no_key(tmp_path):
    trace = tmp_path / "llm.jsonl"
    with StubServer() as server:
        server.add(answer(["billing"], "refunds are billing"), answer(["refunds", "refund-policy"], "refunds, I think"),
                   answer(["refund-delivery"], "when the money arrives"))
        walked = cli("walk", HANDBOOK, "When do I get my money back?", "--navigator", "openai:test-model",
                     "--trace", trace, "--json", env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url})
        assert walked.returncode == 0, walked.stderr
        assert len(server.requests) == 3
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    document = json.loads(walked.stdout)
    assert document["summary"]["landed"] == ["refund-delivery", "billing"]  # then the hallucination lands billing
    assert [s["reason"] for s in document["stops"]] == ["leaf", "invalid_choice"]
    text = trace.read_text()
    assert KEY not in text and KEY not in walked.stdout and KEY not in walked.stderr
    assert '"prompt_tokens": 100' in text
    # Replayed with no server and no key: the same landed nodes, for free.
    replayed = cli("replay", trace, "--json", env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "http://127.0.0.1:9"})
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["summary"]["landed"] == ["refund-delivery", "billing"]


def _chose(document: dict) -> list[dict]:
    return [event for event in document["events"] if event["event"] == "navigator_chose"]


def test_the_transcript_holds_the_prompts_candidates_and_the_raw_answer_and_never_the_key(tmp_path):
    trace = tmp_path / "echo.jsonl"
    env = {"OPENAI_API_KEY": KEY}
    with StubServer() as server:
        # A hostile server echoes the key back: as an id, inside an id, in the rationale.
        server.add(answer([KEY, "billing"], f"your key is {KEY}"), answer([f"refunds-{KEY}", "refunds"], "ok"),
                   answer([], "enough"))
        walked = cli("walk", HANDBOOK, "When do I get my money back?", "--navigator", "openai:test-model",
                     "--trace", trace, "--json", env={**env, "OPENAI_BASE_URL": server.url})
        assert walked.returncode == 0, walked.stderr
        server.add(answer([KEY], KEY), answer([], "stop"))
        shown = cli("walk", HANDBOOK, "money back", "--navigator", "openai:test-model", "--transcripts",
                    env={**env, "OPENAI_BASE_URL": server.url})
        assert shown.returncode == 0, shown.stderr
        sent = [request.json()["messages"] for request in server.requests]
        sent_bodies = [request.json() for request in server.requests]
    document = json.loads(walked.stdout)
    first, second = _chose(document)[:2]
    assert (first["selected"], first["hallucinated"], first["rationale"]) == (["***", "billing"], ["***"],
                                                                              "your key is ***")
    assert second["hallucinated"] == ["refunds-***"]
    transcript = [tuple(pair) for pair in first["transcript"]]
    assert [label for label, _ in transcript] == ["system", "user", "provider", "parameters", "schema", "answer",
                                                  "http"]
    assert transcript[:2] == [("system", sent[0][0]["content"]), ("user", sent[0][1]["content"])]
    offered = [c["id"] for c in document["events"][1]["candidates"]]
    assert offered[:3] == ["accounts", "plans", "billing"]
    for number, node in enumerate(offered, start=1):
        assert f"{number}. id: {node}\n" in transcript[1][1]
    assert transcript[2:4] == [("provider", "openai"), ("parameters", json.dumps(
        {"temperature": 0, "max_tokens": sent_bodies[0]["max_tokens"], "structured_output": True}))]
    assert json.loads(transcript[4][1]) == {"response_format": sent_bodies[0]["response_format"]}
    assert json.loads(transcript[5][1]) == {"selected": ["***", "billing"], "rationale": "your key is ***"}
    assert transcript[6] == ("http", "200 after 1 attempt")
    recorded = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    assert next(e["transcript"] for e in recorded if e.get("event") == "navigator_chose") == first["transcript"]
    for text in (walked.stdout, walked.stderr, trace.read_text(), shown.stdout, shown.stderr):
        assert "TRACE-SECRET" not in text
    assert "Remaining visits: 15." in shown.stdout
