"""In-process scoring on the shipped HealthBench rubrics (hand-annotated graphs): every row of every
format the in-process scorer reads (official GEAR host rows with the official judge's outputs, RaR
rows of the same rubrics with RaR-Explicit verdicts, WritingBench rows with scored outputs, and
PLawBench rows with "(+N分)" subitems and a probability per subitem, too)
is scored here (none declined), with the CLI's rewards."""
from __future__ import annotations

from typing import Any, Dict, List

import pytest

from gear_bridge import load_settings
from gear_bridge.in_process import InProcessScorer
from gear_bridge.rows import parse_row
from gear_bridge.verl.row_judgments import row_judgments
from verl_glue.samples import expected_rewards, make_samples


@pytest.mark.parametrize("aggregator", ["gear", "flat", "hard", "gear-exact", "auto"])
def test_every_shipped_rubric_is_scored_in_process_as_the_cli_scores_it(aggregator: str) -> None:
    # Each of the 30 rubrics in each format; the HealthBench-grader outputs include unreadable ones.
    samples: List[Dict[str, Any]] = [
        sample for form in ("canonical", "official-gear", "ruscarl", "merf", "gear", "rar-explicit", "writingbench", "plawbench")
        for sample in make_samples(seed=40, prompts=30, group=2, formats=(form,))
    ]
    assert len({(s["form"], s["extra_info"]["index"], s["uid"]) for s in samples}) == 8 * 30  # 30 prompts (records) a format
    settings = load_settings(aggregator=aggregator)
    scorer = InProcessScorer(settings)
    fields = []
    for sample in samples:
        row = parse_row(sample["extra_info"])
        fields.append(scorer.fields(row, row_judgments(sample["extra_info"], row, settings, ("extra_info",))))
    assert scorer.declined == 0 and None not in fields
    rewards = [f["score"] for f in fields if f is not None]
    assert rewards == expected_rewards(samples, aggregator)
    if aggregator in ("gear-exact", "auto"):
        # Exact inference ran here: on graphs where a criterion has two parents it differs from mean-field.
        assert sum(a != b for a, b in zip(rewards, expected_rewards(samples, "gear"))) > 0
    # The unreadable grader outputs of the samples were read as unread, here as in the service.
    assert sum(int(f["unread_judgments"]) for f in fields if f is not None) > 0
