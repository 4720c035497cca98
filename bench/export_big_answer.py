"""What exporting a walk costs when one of its recorded answers selects 100,000 ids: ``export --html`` of the
handbook's lexical walk, as recorded and with its first answer swollen, each in a process of its own (wall time and
peak memory). A recorded answer is drawn cut to the ids a live answer keeps, so both should cost about the same.

    .venv/bin/python bench/export_big_answer.py

Figures, not a test: the wall times move with the machine's load.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
QUERY = "How long do refunds take to arrive?"
IDS = 100_000
_EXPORT = ("import resource, sys; from explorer.cli.main import main; code = main(sys.argv[1:]); "
           "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)")


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True, cwd=ROOT, timeout=600,
                   check=True)


def swollen(trace: Path, out: Path) -> None:
    """``trace`` with its first answer selecting :data:`IDS` ids more, none of them offered."""
    lines = trace.read_text().splitlines()
    first = next(n for n, line in enumerate(lines) if json.loads(line).get("event") == "navigator_chose")
    event = json.loads(lines[first])
    junk = [f"junk-{n}" for n in range(IDS)]
    event["selected"], event["hallucinated"] = [*event["selected"], *junk], junk
    lines[first] = json.dumps(event)
    out.write_text("\n".join(lines) + "\n")


def export(trace: Path, page: Path) -> tuple[float, int]:
    """Wall seconds and peak memory (KB) of ``export TRACE --html PAGE`` in a process of its own."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _EXPORT, "export", str(trace), "--html", str(page)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600, check=True)
    return time.monotonic() - started, int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        trace, big = Path(folder) / "walk.jsonl", Path(folder) / "big.jsonl"
        cli("walk", str(HANDBOOK), QUERY, "--navigator", "lexical:default", "--trace", str(trace))
        swollen(trace, big)
        for name, path in (("as recorded", trace), (f"first answer +{IDS:,} ids", big)):
            seconds, peak = export(path, Path(folder) / f"{path.stem}.html")
            print(f"export --html, {name:>26}: {seconds:5.1f} s wall, peak {peak / 1024:6.0f} MB "
                  f"({path.stat().st_size / 1_000_000:.2f} MB trace)")


if __name__ == "__main__":
    main()
