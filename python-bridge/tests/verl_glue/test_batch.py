"""compute_score_batched called as verl's legacy BatchRewardManager.verify calls it: one request per list."""
from __future__ import annotations

from typing import Any, Dict, List

import pytest

from gear_bridge import EmbeddedServer, RowError
from gear_bridge.verl.rewarder import METRIC_KEYS, REWARD_KEYS

SCORE_KEYS = REWARD_KEYS + METRIC_KEYS + ("fcp_leakage",)
from gear_bridge.sync import connect
from gear_bridge.verl.batch import compute_score_batched
from samples import expected_rewards, make_samples
import json
from verl_standins import CharTokenizer, batch_manager_verify, get_custom_reward_fn, make_batch, verl_config


def by_method(url: str) -> Dict[str, int]:
    with connect(url) as client:
        return dict(client.health()["byMethod"])


def delta(before: Dict[str, int], after: Dict[str, int], method: str) -> int:
    return after.get(method, 0) - before.get(method, 0)


def verify(samples: List[Dict[str, Any]], config: Any, **reward_kwargs: Any) -> Any:
    tokenizer = CharTokenizer()
    data = make_batch(
        tokenizer,
        [s["prompt"] for s in samples],
        [s["response"] for s in samples],
        {
            "data_source": ["healthbench"] * len(samples),
            "reward_model": [{"style": "rubric", "ground_truth": ""} for _ in samples],
            "extra_info": [dict(s["extra_info"]) for s in samples],
        },
    )
    return batch_manager_verify(get_custom_reward_fn(config), tokenizer, data, **reward_kwargs)


def test_batch_manager_call_shape(server: EmbeddedServer) -> None:
    """Called with data_sources/solution_strs/ground_truths/extra_infos plus reward_kwargs, it returns one dict per response with stable keys, in one request per method."""
    samples = make_samples(seed=11, prompts=12, group=4, formats=("canonical", "official-gear"))
    config = verl_config(custom_path="pkg://gear_bridge.verl.batch", custom_name="compute_score_batched", custom_kwargs={"url": server.url})
    before = by_method(server.url)
    scores = verify(samples, config, aggregator="gear")
    after = by_method(server.url)
    assert isinstance(scores, list) and len(scores) == len(samples)
    assert all(list(s) == list(SCORE_KEYS) for s in scores)
    assert [s["score"] for s in scores] == expected_rewards(samples)
    assert [s["gear_reward"] for s in scores] == expected_rewards(samples)
    assert [s["flat_reward"] for s in scores] == expected_rewards(samples, "flat")
    assert [s["hard_reward"] for s in scores] == expected_rewards(samples, "hard")
    assert len({s["fcp_leakage"] for s in scores}) == 1  # one step-level figure
    # The reward, the hard metric and the step's FCP figure in one rubric.scoreColumns (alsoAggregators
    # and fcp; flat comes with every answer): no diagnostics.fcp request.
    assert delta(before, after, "rubric.scoreColumns") == 1 and delta(before, after, "diagnostics.fcp") == 0
    # The step's 12 rubrics travel inline in that request: no registration requests.
    assert delta(before, after, "rubric.registerBatch") == 0 and delta(before, after, "rubric.register") == 0
    again = verify(samples, config, aggregator="gear")
    assert again == scores
    final = by_method(server.url)
    assert delta(after, final, "rubric.register") == 0 and delta(after, final, "rubric.registerBatch") == 0


@pytest.mark.parametrize("aggregator", ["gear", "gear-exact", "auto"])
def test_the_steps_fcp_figure_is_diagnostics_fcp_of_its_scores(server: EmbeddedServer, aggregator: str) -> None:
    """fcp_leakage from the scoring request equals what diagnostics.fcp gives for the same step's
    judge scores (gear-exact's FCP is of its own scores, auto's of gear's)."""
    samples = make_samples(seed=14, prompts=12, group=4, formats=("canonical", "official-gear"))
    scores = compute_score_batched([s["extra_info"]["index"] for s in samples], [s["response"] for s in samples], [""] * len(samples),
                                   [dict(s["extra_info"]) for s in samples], url=server.url, aggregator=aggregator)
    items = []
    for sample in samples:
        spec = json.loads(sample["extra_info"]["gear"])
        field = "rubric" if spec["format"] == "canonical" else "reward_model"
        items.append({field: spec[field], "scores": sample["extra_info"]["gear_judgments"]})
    with connect(server.url) as client:
        report = client.fcp(items, aggregators=["gear" if aggregator == "auto" else aggregator])
    leakage = scores[0]["fcp_leakage"]
    assert leakage == report["byAggregator"]["gear" if aggregator == "auto" else aggregator]["leakage"]
    assert 0 < leakage < 1 and leakage != scores[0]["flat_reward"]


def test_mixed_formats_go_out_as_one_request_per_method(server: EmbeddedServer) -> None:
    """On the server path, rubric rows and host rows of one list make one rubric.scoreColumns and one host.scoreBatch."""
    samples = make_samples(seed=12, prompts=8, group=3)
    before = by_method(server.url)
    scores = compute_score_batched(
        [s["extra_info"]["index"] for s in samples], [s["response"] for s in samples], [""] * len(samples),
        [dict(s["extra_info"]) for s in samples], url=server.url, aggregator="gear-exact", metrics=False,
    )
    after = by_method(server.url)
    assert [s["score"] for s in scores] == expected_rewards(samples, "gear-exact")
    assert delta(before, after, "rubric.scoreColumns") == 1 and delta(before, after, "host.scoreBatch") == 1


def test_mismatched_lists_are_refused(server: EmbeddedServer) -> None:
    """Lists of different lengths raise RowError naming the list."""
    with pytest.raises(RowError) as caught:
        compute_score_batched(["a"], ["r", "s"], ["", ""], [{}, {}], url=server.url)
    assert caught.value.path == ("data_sources",)


def test_a_bad_row_is_named_by_its_index(server: EmbeddedServer) -> None:
    """A malformed row in the list raises RowError at extra_infos[i]."""
    samples = make_samples(seed=13, prompts=2, group=2, formats=("canonical",))
    extra_infos = [dict(s["extra_info"]) for s in samples]
    del extra_infos[3]["gear_judgments"]
    with pytest.raises(RowError) as caught:
        compute_score_batched(["hb"] * 4, [s["response"] for s in samples], [""] * 4, extra_infos, url=server.url)
    assert caught.value.path == ("extra_infos", 3, "gear_judgments")
