"""GearRewardManager constructed as verl's load_reward_manager does and driven as
RewardLoopWorker.compute_score_batch drives it: one request per burst of a worker's calls."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest

from gear_bridge import ConfigError, EmbeddedServer, RowError
from gear_bridge.verl.rewarder import METRIC_KEYS, REWARD_KEYS

SCORE_KEYS = REWARD_KEYS + METRIC_KEYS
from gear_bridge.sync import connect
from gear_bridge.verl.manager_base import RewardManagerBase
from gear_bridge.verl.reward_manager import GearRewardManager
from samples import expected_rewards, make_samples
from judge_endpoint import JudgeEndpoint
from verl_standins import CharTokenizer, assemble, compute_score_batch, load_reward_manager, make_batch, verl_config


def by_method(url: str) -> Dict[str, int]:
    with connect(url) as client:
        return dict(client.health()["byMethod"])


def delta(before: Dict[str, int], after: Dict[str, int], method: str) -> int:
    return after.get(method, 0) - before.get(method, 0)


def data_of(samples: List[Dict[str, Any]], with_uid: bool = True) -> Any:
    non_tensor: Dict[str, List[Any]] = {
        "data_source": ["healthbench"] * len(samples),
        "reward_model": [{"style": "rubric", "ground_truth": ""} for _ in samples],
        "extra_info": [dict(s["extra_info"]) for s in samples],
    }
    if with_uid:
        non_tensor["uid"] = [s["uid"] for s in samples]
    return make_batch(CharTokenizer(), [s["prompt"] for s in samples], [s["response"] for s in samples], non_tensor)


def manager_for(url: str, n: int = 8, tokenizer: Any = None, **reward_kwargs: Any) -> Any:
    config = verl_config(
        n=n, manager="GearRewardManager", manager_source="importlib", manager_path="pkg://gear_bridge.verl.reward_manager",
        reward_kwargs={"url": url, **reward_kwargs},
    )
    # RewardLoopWorker passes both, reward_router_address None without a reward model.
    return load_reward_manager(config, tokenizer or CharTokenizer(), reward_router_address=None, reward_model_tokenizer=None)


def test_constructed_as_verl_loads_it(server: EmbeddedServer) -> None:
    """importlib + pkg:// resolves the class; it subclasses verl's RewardManagerBase (here the stand-in) and reads reward_kwargs."""
    manager = manager_for(server.url, n=5, aggregator="flat", group_wait=0.5)
    assert isinstance(manager, GearRewardManager) and isinstance(manager, RewardManagerBase)
    assert (manager.settings.aggregator, manager.settings.group_wait, manager.settings.url) == ("flat", 0.5, server.url)


def test_one_request_for_a_burst_of_calls(server: EmbeddedServer) -> None:
    """112 samples of 14 prompts x 8 rollouts, all run_single calls concurrent: one request per kind
    of row (rubric rows, host rows), each sample its own correct reward."""
    samples = make_samples(seed=21, prompts=14, group=8)
    # The burst ends by idle loop turns, never by time.
    manager = manager_for(server.url, group_wait=5.0, metrics=False)

    async def main() -> Any:
        # One event loop, as a RewardLoopWorker has: the first step registers the rubrics.
        loop = asyncio.get_running_loop()
        warm = await compute_score_batch(manager, data_of(samples))
        before = await loop.run_in_executor(None, by_method, server.url)
        started = loop.time()
        outputs = await compute_score_batch(manager, data_of(samples))
        took = loop.time() - started
        after = await loop.run_in_executor(None, by_method, server.url)
        return warm, before, outputs, after, took

    warm, before, outputs, after, took = asyncio.run(main())
    assert delta(before, after, "rubric.scoreColumns") == 1 and delta(before, after, "host.scoreBatch") == 1
    assert delta(before, after, "rubric.register") == 0 and delta(before, after, "rubric.score") == 0
    assert took < 5.0  # not group_wait: 1 ms without a call ended the burst
    assert [o["reward_score"] for o in outputs] == expected_rewards(samples) == [o["reward_score"] for o in warm]
    assert all(list(o["reward_extra_info"]) == list(REWARD_KEYS) for o in outputs)
    arrays = assemble(outputs)
    assert arrays["score"].shape == (112,) and list(arrays["score"]) == [o["reward_score"] for o in outputs]


def test_a_pause_ends_a_batch_without_waiting_for_group_wait(server: EmbeddedServer) -> None:
    """Two bursts of 4 calls 100 ms apart, group_wait 5 s: two requests, answered long before 5 s,
    each call with its own reward (what did not come yet is never waited for)."""
    samples = make_samples(seed=22, prompts=1, group=8, formats=("canonical",))
    manager = manager_for(server.url, group_wait=5.0, metrics=False)
    data = data_of(samples)

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        await manager.run_single(data[0:1])  # registers the rubric
        before = await loop.run_in_executor(None, by_method, server.url)
        started = loop.time()
        first = [asyncio.create_task(manager.run_single(data[i:i + 1])) for i in range(4)]
        await asyncio.sleep(0.1)
        second = [asyncio.create_task(manager.run_single(data[i:i + 1])) for i in range(4, 8)]
        outputs = await asyncio.gather(*first, *second)
        took = loop.time() - started
        return before, outputs, await loop.run_in_executor(None, by_method, server.url), took

    before, outputs, after, took = asyncio.run(main())
    assert delta(before, after, "rubric.scoreColumns") == 2
    assert took < 5.0
    assert [o["reward_score"] for o in outputs] == expected_rewards(samples)


def test_a_bad_sample_fails_alone(server: EmbeddedServer) -> None:
    """A malformed judgment fails its own run_single; the rest of its group is scored."""
    samples = make_samples(seed=24, prompts=1, group=4, formats=("canonical",))
    count = len(json.loads(samples[2]["extra_info"]["gear"])["rubric"]["criteria"])
    samples[2]["extra_info"]["gear_judgments"] = {"p": [0.5] * (count + 1)}  # one score too many: the server says so
    manager = manager_for(server.url, n=4, group_wait=5.0)

    async def main() -> List[Any]:
        data = data_of(samples)
        tasks = [asyncio.create_task(manager.run_single(data[i:i + 1])) for i in range(len(data))]
        return list(await asyncio.gather(*tasks, return_exceptions=True))

    outcomes = asyncio.run(main())
    assert isinstance(outcomes[2], RowError) and outcomes[2].path[:2] == ("extra_info", "gear_judgments")
    good = [o for i, o in enumerate(outcomes) if i != 2]
    assert [o["reward_score"] for o in good] == expected_rewards([s for i, s in enumerate(samples) if i != 2])


def test_judgments_from_tool_extra_fields_with_a_shared_row(server: EmbeddedServer) -> None:
    """With one extra_info dict shared by the group (as verl's repeat leaves it) and each rollout's judgments in tool_extra_fields, every sample gets its own reward and the row is not modified."""
    samples = make_samples(seed=25, prompts=2, group=4, formats=("canonical", "ruscarl"))
    shared_rows = {}
    for s in samples:
        shared_rows.setdefault(s["uid"], {"index": s["extra_info"]["index"], "gear": s["extra_info"]["gear"]})
    snapshot = json.dumps(shared_rows, sort_keys=True)
    data = make_batch(
        CharTokenizer(), [s["prompt"] for s in samples], [s["response"] for s in samples],
        {
            "data_source": ["healthbench"] * len(samples),
            "reward_model": [{"style": "rubric", "ground_truth": ""} for _ in samples],
            "extra_info": [shared_rows[s["uid"]] for s in samples],
            "tool_extra_fields": [{"gear_judgments": s["extra_info"]["gear_judgments"]} for s in samples],
            "uid": [s["uid"] for s in samples],
        },
    )
    manager = manager_for(server.url, n=4, group_wait=5.0)
    outputs = asyncio.run(compute_score_batch(manager, data))
    assert [o["reward_score"] for o in outputs] == expected_rewards(samples)
    assert json.dumps(shared_rows, sort_keys=True) == snapshot


class CountingTokenizer(CharTokenizer):
    """verl's tokenizer, counting the responses decoded."""

    def __init__(self) -> None:
        super().__init__()
        self.decoded = 0

    def decode(self, ids: Any, skip_special_tokens: bool = False) -> str:
        self.decoded += 1
        return super().decode(ids, skip_special_tokens)


def test_given_judgments_need_no_decoding(server: EmbeddedServer) -> None:
    """Scoring judgments that came with the sample never reads the response, so the manager does
    not decode it (verl's naive manager decodes every one); a sample left to the judge is decoded."""
    samples = make_samples(seed=26, prompts=2, group=4, formats=("canonical", "ruscarl"))
    tokenizer = CountingTokenizer()
    manager = manager_for(server.url, n=4, tokenizer=tokenizer, group_wait=5.0)
    outputs = asyncio.run(compute_score_batch(manager, data_of(samples)))
    assert [o["reward_score"] for o in outputs] == expected_rewards(samples)
    assert tokenizer.decoded == 0

    judged = [s for s in samples if json.loads(s["extra_info"]["gear"])["format"] == "ruscarl"][:2]
    for s in judged:
        del s["extra_info"]["gear_judgments"]
    with JudgeEndpoint() as endpoint:
        manager = manager_for(server.url, n=2, tokenizer=tokenizer, judge_url=endpoint.url, group_wait=5.0)
        outputs = asyncio.run(compute_score_batch(manager, data_of(judged)))
    assert [o["reward_extra_info"]["judged"] for o in outputs] == [1, 1]
    assert tokenizer.decoded == 2


def test_judgments_in_a_shared_extra_info_are_refused(server: EmbeddedServer) -> None:
    """One extra_info dict with judgments, shared by two rollouts with different responses (as verl's
    repeat leaves a row): the second cannot be its response's, and is refused, not scored."""
    samples = make_samples(seed=27, prompts=1, group=2, formats=("canonical",))
    assert samples[0]["response"] != samples[1]["response"]
    row = dict(samples[0]["extra_info"])
    data = make_batch(
        CharTokenizer(), [s["prompt"] for s in samples], [s["response"] for s in samples],
        {
            "data_source": ["healthbench"] * 2,
            "reward_model": [{"style": "rubric", "ground_truth": ""}] * 2,
            "extra_info": [row, row],
            "uid": [s["uid"] for s in samples],
        },
    )
    manager = manager_for(server.url, n=2, group_wait=5.0)

    async def main() -> List[Any]:
        first = await manager.run_single(data[0:1])
        again = await manager.run_single(data[0:1])  # the same response read again: fine
        return [first, again, *(await asyncio.gather(manager.run_single(data[1:2]), return_exceptions=True))]

    first, again, second = asyncio.run(main())
    assert first["reward_score"] == again["reward_score"] == expected_rewards(samples[:1])[0]
    assert isinstance(second, RowError) and second.path == ("extra_info", "gear_judgments")
    assert "different text" in str(second)


def test_a_row_scored_by_the_reward_function_then_the_manager_is_not_refused(server: EmbeddedServer) -> None:
    """The guard remembers a response by its text (reward function) or its token ids (manager); one
    process scoring the same extra_info both ways gets both rewards, not a refusal."""
    from gear_bridge.verl.reward_fn import compute_score

    samples = make_samples(seed=28, prompts=1, group=1, formats=("canonical",))
    row = dict(samples[0]["extra_info"])
    data = make_batch(
        CharTokenizer(), [samples[0]["prompt"]], [samples[0]["response"]],
        {"data_source": ["healthbench"], "reward_model": [{"style": "rubric", "ground_truth": ""}], "extra_info": [row], "uid": [samples[0]["uid"]]},
    )
    manager = manager_for(server.url, n=1, group_wait=5.0)

    async def main() -> List[Any]:
        by_function = await compute_score("healthbench", samples[0]["response"], "", row, url=server.url)
        by_manager = await manager.run_single(data[0:1])
        return [by_function["score"], by_manager["reward_score"], (await compute_score("healthbench", samples[0]["response"], "", row, url=server.url))["score"]]

    assert asyncio.run(main()) == expected_rewards(samples) * 3
