"""Copy the timing series of an ollama-tier run into fixtures/timing/ (the rules' recorded tests).

Usage: python scripts/timing-series.py EVIDENCE.json OUT.json

Reads, from the run's evidence, each timing rule's values (the attachments named
"...: timing rule") and the /api/ps reads of MC-KEEPALIVE's settle rule, and
writes them with the run's provenance (Ollama version, model, date, host load
at the end of the run). Nothing from the machine's paths is kept.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def main(evidence: str, out: str) -> None:
    with open(evidence, encoding="utf-8") as fh:
        doc = json.load(fh)
    run = doc.get("run", {})
    series: dict[str, Any] = {}
    settles: dict[str, Any] = {}
    for claim in doc.get("claims", []):
        for check in claim.get("checks", []):
            for att in check.get("attachments", []):
                label = str(att.get("label", ""))
                if att.get("truncated"):
                    continue
                if label.endswith(": timing rule"):
                    rule = json.loads(att["content"])
                    series[f"{claim['id']}: {label[: -len(': timing rule')]}"] = {
                        "rule": rule["rule"],
                        "plan": rule["plan"],
                        "outcome": rule["outcome"],
                        "false_refutation_chance": rule["false_refutation_chance"],
                        "values": rule["values"],
                    }
                if claim["id"] == "MC-KEEPALIVE" and label.startswith("GET /api/ps after"):
                    # Only the settle rule's record (no address of the server).
                    exchange = json.loads(att["content"])
                    settles[label] = json.loads(exchange.get("reply_excerpt") or "null")
    machine = run.get("machine", {})
    record = {
        "provenance": {
            "what": "timing series measured by the ollama tier (claims.timing), for the "
            "rules' recorded tests",
            "ollama": (machine.get("ollama") or {}).get("version"),
            "model": (run.get("facts") or {}).get("ollama_model") or "gemma3:270m",
            "started": run.get("started"),
            "load_average_after": os.getloadavg(),
            "machine": "2 shared CPU cores, other jobs running (the run is 'under load')",
        },
        "series": series,
        "keep_alive_settles": settles,
    }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
