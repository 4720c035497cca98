"""Per-variant figures read back from the response cache: every local-model answer kept since a time, grouped
by the variant whose system message asked for it (default, compact, ids).

Run: python bench/prompts/cache_figures.py [--since "2026-12-01 23:05"] [--cache DIR]

For each variant: decisions, median prompt tokens (and the new ones, not in llama.cpp's prompt cache), median
answer tokens, rationales that copy the default prompt's placeholder, duplicate ids in the raw answers, and
answers that took every candidate offered. A measurement of whatever the cache holds; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

PLACEHOLDER = "one or two sentences"


def variant(system: str) -> str:
    if system.startswith("You guide"):
        return "default"
    return "ids" if "rationale" not in system else "compact"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", default="2026-12-01 23:05")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "reasoning-explorer" / "llm")
    args = parser.parse_args()
    since = time.mktime(time.strptime(args.since, "%Y-%m-%d %H:%M"))
    rows: dict[str, list[tuple[int, int, int, bool, int, bool]]] = defaultdict(list)
    for path in args.cache.glob("*/*"):
        if path.stat().st_mtime < since:
            continue
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            answer = json.loads(entry["answer"])
            request = entry["request"]
            content = answer["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            continue
        if "SmolLM2" not in str(answer.get("model", "")):
            continue
        try:
            parsed = json.loads(content)
        except ValueError:
            parsed = {}
        selected = list(parsed.get("selected", []))
        rationale = str(parsed.get("rationale", ""))
        offered = request["response_format"]["json_schema"]["schema"]["properties"]["selected"]["items"]["enum"]
        usage, timings = answer.get("usage", {}), answer.get("timings", {})
        name = variant(request["messages"][0]["content"])
        most = request["response_format"]["json_schema"]["schema"]["properties"]["selected"].get("maxItems", 0)
        if name == "ids" and most == 2 and len(offered) > 2 and request.get("max_tokens", 0) < 100:
            name = "ids, max_items=2"  # a cap the offer and the budget alone would not set
        rows[name].append(
            (usage.get("prompt_tokens", 0), timings.get("prompt_n", 0), usage.get("completion_tokens", 0),
             PLACEHOLDER in rationale, len(selected) - len(set(selected)), len(set(selected)) == len(offered)))
    for name, found in sorted(rows.items()):
        print(f"{name}: {len(found)} decisions; prompt tokens median {statistics.median(r[0] for r in found):.0f} "
              f"(new {statistics.median(r[1] for r in found):.0f}); answer tokens median "
              f"{statistics.median(r[2] for r in found):.0f}; copied placeholders {sum(r[3] for r in found)}; "
              f"duplicate ids {sum(r[4] for r in found)}; took every candidate {sum(r[5] for r in found)}")


if __name__ == "__main__":
    main()
