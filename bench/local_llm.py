"""The local model (``local:smollm2``, SmolLM2-135M-Instruct Q4_1 on llama.cpp) measured on this machine.

Run: .venv/bin/python bench/local_llm.py [--threads 1,2] [--repeat N] [--sets [--jobs J] [--sets-visits N]]
     .venv/bin/python bench/local_llm.py --limit [--system FILE --prompt FILE]

Prints, for the local model:

- how long the server takes to start and load the model;
- seconds per decision, cold (a new server: nothing in its prompt cache) and with the prefix cached (the same
  request again, and the next offer of a walk, which shares the system prompt), each for every thread count
  of ``--threads``, with the generation speed llama.cpp reports (tokens per second);
- prompt and completion tokens per decision;
- a whole walk's wall time (default budget 15 and depth 6);
- the speed limit of one walk's decisions (``--limit``, also run by default): for every decision of the same
  walk on the same server, its wall time, and the limit llama.cpp's own timings set (the new prompt tokens, the
  ones not already in the slot's prompt cache, over the measured prompt rate, plus the answer tokens over the
  measured generation rate); the median decision time, the median limit and their ratio (``--system FILE`` and
  ``--prompt FILE`` measure a variant's words);
- an evaluation of the handbook set run twice with the response cache: the second run makes no call;
- with ``--sets``: ``eval`` of ``local:smollm2``, ``semantic:hybrid`` and ``lexical:default`` on the four sample
  question sets: hits, landed nodes per question, and the rate of answers that parse and name only offered ids
  (the share of decisions with no hallucinated id and no failure), with structured output on (auto), and with
  ``--sets-schema-off`` also off.

Every figure is a measurement on whatever else this machine is doing; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from core import (  # noqa: E402
    CancellationToken,
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    WalkFinished,
)
from explorer.corpora import load_corpus  # noqa: E402
from explorer.corpora.questions import load_questions  # noqa: E402
from explorer.navigators import resolve_navigator  # noqa: E402
from explorer.navigators.folders import CACHE_DIR_ENV, folders_for  # noqa: E402
from explorer.navigators.local_model import LocalModelNavigator  # noqa: E402
from explorer.walk_settings import WalkSettings  # noqa: E402
from explorer.walks.evaluation import evaluate  # noqa: E402
from explorer.walks.session import WalkSession, Wiring  # noqa: E402

SAMPLES = ROOT / "sample_corpora"
HANDBOOK = SAMPLES / "handbook.yaml"
QUERIES = ("How long do refunds take to arrive?", "I forgot my password", "Can I work from another country?",
           "What happens to my laptop when I leave?")
SETS = ("handbook", "regulation", "specification", "contract")


def _offers(query: str, model: str, navigator: Any) -> list[NavigatorRequest]:
    """The offers of a lexical walk of ``query``, as requests to ``model`` (the same prompts a walk sends)."""
    session = WalkSession(load_corpus(HANDBOOK), WalkSettings(query, "lexical:wide", max_nodes_visited=6),
                          resolve_navigator("lexical:wide"))
    session.run_headless()
    return [NavigatorRequest(query, model, e.current, e.candidates, e.remaining_visits, CancellationToken())
            for e in session.history.events if isinstance(e, CandidatesOffered)]


def _timed(navigator: LocalModelNavigator, request: NavigatorRequest) -> tuple[float, dict[str, int]]:
    started = time.perf_counter()
    choice = navigator.choose(request)
    return time.perf_counter() - started, dict(choice.usage or {})


def _generation_speed(address: str) -> float | None:
    """Tokens per second of the last generation, from llama.cpp's own timings (a tiny direct request)."""
    body = {"messages": [{"role": "user", "content": "Count from one to twenty in words."}], "max_tokens": 48,
            "temperature": 0}
    timings = httpx.post(f"{address}/v1/chat/completions", json=body, timeout=120).json().get("timings", {})
    speed = timings.get("predicted_per_second")
    return float(speed) if isinstance(speed, int | float) else None


def per_decision(threads: int, repeat: int) -> None:
    model = f"local:smollm2@threads={threads},slots=1"
    navigator = resolve_navigator(model)
    assert isinstance(navigator, LocalModelNavigator)
    server = navigator.server(model)
    started = time.perf_counter()
    address = server.address(CancellationToken())
    load = time.perf_counter() - started
    cold: list[float] = []
    warm: list[float] = []
    next_offer: list[float] = []
    prompt_tokens: list[int] = []
    completion_tokens: list[int] = []
    for round_ in range(repeat):
        query = QUERIES[round_ % len(QUERIES)]
        requests = _offers(query, model, navigator)
        server.stop()  # a new server: its prompt cache is empty
        server.address(CancellationToken())
        seconds, usage = _timed(navigator, requests[0])
        cold.append(seconds)
        seconds, usage = _timed(navigator, requests[0])  # the very same prompt: all of it cached
        warm.append(seconds)
        for request in requests[1:3]:  # the walk's next offers: the system prompt's prefix cached
            seconds, usage = _timed(navigator, request)
            next_offer.append(seconds)
            prompt_tokens.append(usage.get("prompt_tokens", 0))
            completion_tokens.append(usage.get("completion_tokens", 0))
    speed = _generation_speed(server.address(CancellationToken()))
    server.stop()
    print(f"threads={threads}: server ready in {load:.2f} s (llama.cpp at {address})")
    print(f"  per decision, cold (nothing cached):        median {statistics.median(cold):5.2f} s  "
          f"(min {min(cold):.2f}, max {max(cold):.2f}, n={len(cold)})")
    print(f"  per decision, the same prompt again:        median {statistics.median(warm):5.2f} s")
    print(f"  per decision, next offer (prefix cached):   median {statistics.median(next_offer):5.2f} s  "
          f"(n={len(next_offer)})")
    print(f"  tokens per decision: prompt median {statistics.median(prompt_tokens):.0f} "
          f"(max {max(prompt_tokens)}), completion median {statistics.median(completion_tokens):.0f} "
          f"(max {max(completion_tokens)})")
    print(f"  generation: {speed:.1f} tokens/s" if speed else "  generation: (no timings reported)")


def whole_walk(query: str) -> None:
    model = "local:smollm2"
    navigator = resolve_navigator(model)
    assert isinstance(navigator, LocalModelNavigator)
    navigator.server(model).address(CancellationToken())
    started = time.perf_counter()
    session = WalkSession(load_corpus(HANDBOOK), WalkSettings(query, model), navigator)
    session.run_headless()
    seconds = time.perf_counter() - started
    events = session.history.events
    decisions = [e for e in events if isinstance(e, NavigatorChose | NavigatorFailed)]
    tokens = [dict(e.usage or {}) for e in events if isinstance(e, NavigatorChose)]
    finished = [e for e in events if isinstance(e, WalkFinished)]
    landed = [d.id for d in finished[0].result.documents] if finished else []
    print(f"a whole walk (budget 15, depth 6) of {query!r}: {seconds:.1f} s, {len(decisions)} decisions "
          f"({seconds / max(1, len(decisions)):.2f} s each), "
          f"{sum(t.get('prompt_tokens', 0) for t in tokens)} prompt + "
          f"{sum(t.get('completion_tokens', 0) for t in tokens)} completion tokens; landed {landed}")


def speed_limit(query: str, system: Path | None, template: Path | None, rationale: int = 240,
                max_items: int | None = None, grammar: bool = False, threads: int = 1) -> None:
    """One walk's offers sent in order to one server, as the navigator sends them (messages, schema, sampling),
    each timed; llama.cpp's timings give the new prompt tokens, the answer tokens and both rates."""
    from explorer.navigators.llm.prompt import SYSTEM_PROMPT, Prompts, messages
    from explorer.navigators.llm.schema import choice_schema, compact_grammar, default_max_tokens, request_fields

    model = f"local:smollm2@threads={threads},slots=1"
    navigator = resolve_navigator(model)
    assert isinstance(navigator, LocalModelNavigator)
    server = navigator.server(model)
    address = server.address(CancellationToken())
    prompts = Prompts(system.read_text(encoding="utf-8") if system else SYSTEM_PROMPT,
                      template.read_text(encoding="utf-8") if template else None)
    rows: list[tuple[float, dict[str, Any]]] = []
    with httpx.Client(timeout=300) as client:
        for request in _offers(query, model, navigator):
            schema = choice_schema(request.candidates, request.remaining_visits, rationale, max_items)
            body = {"messages": [{"role": role, "content": text} for role, text in messages(request, prompts)],
                    "temperature": 0, "cache_prompt": True,
                    "max_tokens": default_max_tokens(request.candidates, request.remaining_visits, rationale),
                    **({"grammar": compact_grammar(schema)} if grammar else request_fields("local", schema))}
            started = time.perf_counter()
            reply = client.post(f"{address}/v1/chat/completions", json=body).json()
            rows.append((time.perf_counter() - started, dict(reply.get("timings") or {})))
    server.stop()
    timed = [(seconds, t) for seconds, t in rows if t.get("prompt_per_second") and t.get("predicted_per_second")]
    if not timed:
        print("speed limit: (llama.cpp reported no timings)")
        return
    prompt_rate = statistics.median(float(t["prompt_per_second"]) for _, t in timed)
    generation_rate = statistics.median(float(t["predicted_per_second"]) for _, t in timed)
    limits = [t.get("prompt_n", 0) / prompt_rate + t.get("predicted_n", 0) / generation_rate for _, t in timed]
    median_time = statistics.median(seconds for seconds, _ in timed)
    median_limit = statistics.median(limits)
    words = (f"{system.name if system else 'default system'} + {template.name if template else 'default template'}"
             f", rationale={rationale or 'off'}, max_items={max_items or 'all'}"
             f"{', grammar=compact' if grammar else ''}, {threads} thread{'s' if threads != 1 else ''}")
    print(f"speed limit of one walk ({len(timed)} decisions of {query!r}, {words}):")
    print("  decision times " + ", ".join(f"{seconds:.2f}" for seconds, _ in timed) + " s")
    print(f"  new prompt tokens per decision: median {statistics.median(t.get('prompt_n', 0) for _, t in timed):.0f}"
          f" (cached: median {statistics.median(t.get('cache_n', 0) for _, t in timed):.0f}); answer tokens: "
          f"median {statistics.median(t.get('predicted_n', 0) for _, t in timed):.0f}")
    print(f"  measured rates: prompt {prompt_rate:.0f} tokens/s, generation {generation_rate:.0f} tokens/s")
    print(f"  median decision {median_time:.2f} s; limit (new prompt / prompt rate + answer / generation rate) "
          f"median {median_limit:.2f} s; ratio {median_time / median_limit:.2f}")


def eval_twice_with_cache(jobs: int) -> None:
    questions = load_questions(SAMPLES / "handbook.questions.yaml")
    corpus = load_corpus(HANDBOOK)
    with tempfile.TemporaryDirectory() as folder:
        wiring = Wiring(folders=folders_for(Path(folder)))  # cached there, as `eval --cache FOLDER` would
        times = []
        for _ in range(2):
            navigator = wiring.wire(resolve_navigator("local:smollm2"))
            started = time.perf_counter()
            outcomes = evaluate(corpus, questions.questions, WalkSettings("", "local:smollm2"), jobs=jobs,
                                navigator=navigator)
            times.append(time.perf_counter() - started)
        entries = len(list(Path(folder).rglob("*.json")))
    hits = sum(o.hit for o in outcomes)
    print(f"eval of handbook ({len(questions.questions)} questions, --jobs {jobs}) with the cache: first run "
          f"{times[0]:.1f} s, second run {times[1]:.2f} s ({entries} answers cached; {hits} hits both times)")


def slots_compared(jobs: int, questions_walked: int) -> None:
    """The first questions of the handbook set, ``jobs`` at a time, on a server of 1 slot and of 2 (no cache)."""
    questions = load_questions(SAMPLES / "handbook.questions.yaml").questions[:questions_walked]
    corpus = load_corpus(HANDBOOK)
    for slots in (1, 2):
        model = f"local:smollm2@slots={slots}"
        navigator = resolve_navigator(model)
        assert isinstance(navigator, LocalModelNavigator)
        navigator.server(model).address(CancellationToken())
        started = time.perf_counter()
        outcomes = evaluate(corpus, questions, WalkSettings("", model, max_nodes_visited=6), jobs=jobs,
                            navigator=navigator)
        seconds = time.perf_counter() - started
        decisions, _ = _answers(outcomes)
        navigator.server(model).stop()
        print(f"slots={slots}, --jobs {jobs}: {len(questions)} questions (budget 6) in {seconds:.1f} s, "
              f"{decisions} decisions, {seconds / max(1, decisions):.2f} s per decision")


def _answers(outcomes: Sequence[Any]) -> tuple[int, int]:
    """(decisions, those whose answer parsed and named only offered ids)."""
    decisions = valid = 0
    for outcome in outcomes:
        for event in outcome.history.events if outcome.history else ():
            if isinstance(event, NavigatorChose):
                decisions += 1
                valid += not event.hallucinated
            elif isinstance(event, NavigatorFailed):
                decisions += 1
    return decisions, valid


def sets(jobs: int, visits: int | None, schema_off: bool) -> None:
    models = ("local:smollm2", *(("local:smollm2@schema=off",) if schema_off else ()), "semantic:hybrid",
              "lexical:default")
    print(f"eval on the four sample sets (budget {visits or 15}, depth 6; local with --jobs {jobs}):")
    print(f"  {'set':<14}{'navigator':<28}{'hits':>8}  {'landed/q':>8}  {'valid answers':>14}  {'seconds':>8}")
    totals: dict[str, list[int]] = {m: [0, 0, 0, 0, 0] for m in models}
    for name in SETS:
        questions = load_questions(SAMPLES / f"{name}.questions.yaml")
        corpus = load_corpus(SAMPLES / f"{name}.yaml")
        for model in models:
            settings = WalkSettings("", model, max_nodes_visited=visits or 15)
            started = time.perf_counter()
            outcomes = evaluate(corpus, questions.questions, settings, jobs=jobs if model.startswith("local:") else 1,
                                navigator=resolve_navigator(model))
            seconds = time.perf_counter() - started
            hits = sum(o.hit for o in outcomes)
            landed = sum(len(o.landed) for o in outcomes)
            decisions, valid = _answers(outcomes)
            total = totals[model]
            for i, value in enumerate((hits, len(outcomes), landed, decisions, valid)):
                total[i] += value
            rate = f"{valid}/{decisions} {valid / decisions:.0%}" if decisions else "-"
            print(f"  {name:<14}{model:<28}{hits:>3}/{len(outcomes):<4}  {landed / len(outcomes):>8.1f}  "
                  f"{rate:>14}  {seconds:>8.0f}", flush=True)
    for model, (hits, count, landed, decisions, valid) in totals.items():
        rate = f"{valid}/{decisions} {valid / decisions:.0%}" if decisions else "-"
        print(f"  {'all':<14}{model:<28}{hits:>3}/{count:<4}  {landed / count:>8.1f}  {rate:>14}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2", help="thread counts to compare (default 1,2)")
    parser.add_argument("--repeat", type=int, default=3, help="cold starts per thread count (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="questions walked at once in the evaluations")
    parser.add_argument("--sets", action="store_true", help="also evaluate the four sample sets (long)")
    parser.add_argument("--sets-visits", type=int, default=None, help="the visit budget for --sets (default 15)")
    parser.add_argument("--sets-schema-off", action="store_true",
                        help="with --sets: also the local model with structured output off")
    parser.add_argument("--skip-decisions", action="store_true", help="leave out the per-decision figures")
    parser.add_argument("--slots", action="store_true", help="only compare a server of 1 slot and of 2")
    parser.add_argument("--rationale", type=int, default=240, help="the speed limit's rationale chars (0: off)")
    parser.add_argument("--max-items", type=int, default=None, help="the speed limit's most ids an answer holds")
    parser.add_argument("--limit", action="store_true", help="only the speed limit of one walk's decisions")
    parser.add_argument("--grammar", action="store_true", help="the speed limit with grammar=compact")
    parser.add_argument("--limit-threads", type=int, default=1, help="the speed limit's server threads (default 1)")
    parser.add_argument("--system", type=Path, default=None, help="the speed limit with this system message file")
    parser.add_argument("--prompt", type=Path, default=None, help="the speed limit with this prompt template file")
    args = parser.parse_args()
    os.environ[CACHE_DIR_ENV] = "off"  # every call below is a real one, unless said otherwise
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.slots:
        slots_compared(args.jobs, 8)
        return
    if args.limit:
        speed_limit(QUERIES[0], args.system, args.prompt, args.rationale, args.max_items, args.grammar,
                    args.limit_threads)
        return
    if not args.skip_decisions:
        for threads in (int(t) for t in args.threads.split(",")):
            per_decision(threads, args.repeat)
        whole_walk(QUERIES[0])
        speed_limit(QUERIES[0], args.system, args.prompt, args.rationale, args.max_items)
        eval_twice_with_cache(args.jobs)
    if args.sets:
        sets(args.jobs, args.sets_visits, args.sets_schema_off)
    print(json.dumps({"load_average_after": os.getloadavg()}))


if __name__ == "__main__":
    main()
