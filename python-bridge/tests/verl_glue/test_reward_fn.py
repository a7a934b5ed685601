"""compute_score called exactly as verl 0.9.x's naive reward-loop manager calls it."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import numpy as np
import pytest

from conftest import GEAR_CLI
from recording_proxy import RecordingProxy
from gear_bridge import ConfigError, EmbeddedServer, RowError
from gear_bridge.verl.rewarder import METRIC_KEYS, REWARD_KEYS

SCORE_KEYS = REWARD_KEYS + METRIC_KEYS
from gear_bridge.verl.reward_fn import compute_score, compute_score_sync
from samples import expected_rewards, make_samples
from verl_standins import CharTokenizer, NaiveManager, assemble, compute_score_batch, get_custom_reward_fn, make_batch, parquet_like, verl_config


def batch_of(samples: List[Dict[str, Any]], tokenizer: CharTokenizer, extra_info: Any = None) -> Any:
    return make_batch(
        tokenizer,
        [s["prompt"] for s in samples],
        [s["response"] for s in samples],
        {
            "data_source": ["healthbench"] * len(samples),
            "reward_model": [{"style": "rubric", "ground_truth": ""} for _ in samples],
            "extra_info": extra_info if extra_info is not None else [dict(s["extra_info"]) for s in samples],
            "uid": [s["uid"] for s in samples],
        },
    )


@pytest.mark.parametrize("with_router", [False, True])
def test_naive_manager_call_shape(server: EmbeddedServer, with_router: bool) -> None:
    """Loaded by pkg:// path with reward_kwargs, called with keyword args (and VERL's router kwargs when set), every format scores as the CLI does, with the same keys."""
    config = verl_config(custom_path="pkg://gear_bridge.verl.reward_fn", custom_kwargs={"aggregator": "gear", "url": server.url})
    tokenizer = CharTokenizer()
    reward_fn = get_custom_reward_fn(config)
    router = {"reward_router_address": "127.0.0.1:9", "reward_model_tokenizer": CharTokenizer()} if with_router else {}
    manager = NaiveManager(config=config, tokenizer=tokenizer, compute_score=reward_fn, **router)
    samples = make_samples(seed=1, prompts=8, group=4)
    outputs = asyncio.run(compute_score_batch(manager, batch_of(samples, tokenizer)))
    assert [o["reward_score"] for o in outputs] == expected_rewards(samples)
    for output in outputs:
        assert list(output["reward_extra_info"]) == list(SCORE_KEYS)
        assert type(output["reward_score"]) is float
        assert all(isinstance(v, (int, float)) for v in output["reward_extra_info"].values())
    arrays = assemble(outputs)  # verl builds one np.array per key of the first output
    assert arrays["score"].dtype == np.float64 and arrays["num_criteria"].dtype.kind == "i"
    assert set(s["form"] for s in samples) == {"canonical", "official-gear", "ruscarl", "gear"}


@pytest.mark.parametrize("aggregator", ["flat", "hard", "gear-exact"])
def test_aggregator_from_reward_kwargs(server: EmbeddedServer, aggregator: str) -> None:
    """The aggregator set in reward_kwargs is the one used, for rubric and host rows alike."""
    samples = make_samples(seed=2, prompts=4, group=2)

    async def main() -> List[float]:
        results = await asyncio.gather(*(
            compute_score(data_source="healthbench", solution_str=s["response"], ground_truth="", extra_info=dict(s["extra_info"]), aggregator=aggregator, url=server.url)
            for s in samples
        ))
        return [r["score"] for r in results]

    assert asyncio.run(main()) == expected_rewards(samples, aggregator)


def test_parquet_rows_score_the_same(server: EmbeddedServer) -> None:
    """A row read back from parquet (numpy arrays, gear as a dict of arrays) scores the same as its JSON."""
    samples = make_samples(seed=3, prompts=4, group=2, gear_as_json=False)

    async def main() -> List[float]:
        results = await asyncio.gather(*(
            compute_score("healthbench", s["response"], "", parquet_like(s["extra_info"]), url=server.url) for s in samples
        ))
        return [r["score"] for r in results]

    assert asyncio.run(main()) == expected_rewards(samples)


def test_environment_settings(server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """GEAR_BRIDGE_URL and GEAR_AGGREGATOR apply when reward_kwargs do not set them; reward_kwargs win."""
    samples = make_samples(seed=4, prompts=2, group=2, formats=("canonical",))
    monkeypatch.setenv("GEAR_BRIDGE_URL", server.url)
    monkeypatch.setenv("GEAR_AGGREGATOR", "flat")

    async def main(**kwargs: Any) -> List[float]:
        return [(await compute_score("hb", s["response"], "", dict(s["extra_info"]), **kwargs))["score"] for s in samples]

    assert asyncio.run(main()) == expected_rewards(samples, "flat")
    assert asyncio.run(main(aggregator="hard")) == expected_rewards(samples, "hard")


def test_settings_follow_the_environment_between_calls_with_the_same_kwargs(server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read for one call are reused for the next only when its keyword arguments are the
    same objects and the environment is the same: a variable set or removed between two calls with
    the same reward_kwargs applies from the second, and alternating reward_kwargs each keep theirs."""
    samples = make_samples(seed=7, prompts=2, group=2, formats=("canonical",))
    url = server.url
    monkeypatch.delenv("GEAR_AGGREGATOR", raising=False)

    def rewards(**kwargs: Any) -> List[float]:
        return [compute_score_sync("hb", s["response"], "", dict(s["extra_info"]), url=url, **kwargs)["score"] for s in samples]

    assert len({tuple(expected_rewards(samples, a)) for a in ("gear", "flat", "hard")}) == 3  # each change shows
    assert rewards() == expected_rewards(samples)
    monkeypatch.setenv("GEAR_AGGREGATOR", "flat")
    assert rewards() == expected_rewards(samples, "flat")
    monkeypatch.setenv("GEAR_AGGREGATOR", "hard")
    assert rewards() == expected_rewards(samples, "hard")
    monkeypatch.delenv("GEAR_AGGREGATOR")
    assert rewards() == expected_rewards(samples)
    for aggregator in ("flat", "gear", "flat", "hard"):
        assert rewards(aggregator=aggregator) == expected_rewards(samples, aggregator)
        assert rewards() == expected_rewards(samples)


def test_settings_are_reused_by_equality_only_where_equal_arguments_read_alike(server: EmbeddedServer) -> None:
    """The last call's settings serve an equal call: by equality where every argument is text
    (equal texts read alike, so an aggregator spelled by another str object gives its rewards),
    and by identity otherwise, so ``metrics=1`` after ``metrics=True`` (equal in Python) is read,
    and refused, not taken for True. A value whose comparison raises is read, and named."""
    samples = make_samples(seed=8, prompts=2, group=2, formats=("canonical",))
    url = server.url

    def rewards(**kwargs: Any) -> List[float]:
        return [compute_score_sync("hb", s["response"], "", dict(s["extra_info"]), url=url, **kwargs)["score"] for s in samples]

    assert len({tuple(expected_rewards(samples, a)) for a in ("gear", "flat", "hard")}) == 3  # each change shows
    for aggregator in ("flat", "hard", "gear"):
        built = "".join(list(aggregator))  # equal to the literal, another object
        assert built is not aggregator
        assert rewards(aggregator=aggregator) == expected_rewards(samples, aggregator)
        assert rewards(aggregator=built) == expected_rewards(samples, aggregator)
    sample = samples[0]
    assert "gear_reward" in compute_score_sync("hb", sample["response"], "", dict(sample["extra_info"]), url=url, metrics=True)
    with pytest.raises(ConfigError) as caught:
        compute_score_sync("hb", sample["response"], "", dict(sample["extra_info"]), url=url, metrics=1)
    assert caught.value.path == ("metrics",)
    assert rewards(aggregator="flat") == expected_rewards(samples, "flat")
    with pytest.raises(ConfigError) as caught:
        compute_score_sync("hb", sample["response"], "", dict(sample["extra_info"]), url=url, aggregator=np.array(["flat", "flat"]))
    assert caught.value.path == ("aggregator",)


def test_reward_kwargs_changed_in_place_are_read_again(server: EmbeddedServer) -> None:
    """verl passes the same reward_kwargs objects to every call, and gear keys its settings by
    them: a plain dict changed in place since the last call is read again."""
    samples = make_samples(seed=6, prompts=4, group=2, formats=("canonical",))
    options: Dict[str, Any] = {"gamma": 1}

    async def main() -> List[float]:
        return [(await compute_score("hb", s["response"], "", dict(s["extra_info"]), url=server.url, options=options))["score"] for s in samples]

    assert expected_rewards(samples) != expected_rewards(samples, "flat")  # the change shows
    assert asyncio.run(main()) == expected_rewards(samples)
    options["gamma"] = 0  # no suppression: the flat reward
    assert asyncio.run(main()) == expected_rewards(samples, "flat")
    options["gamma"] = 1
    assert asyncio.run(main()) == expected_rewards(samples)


def test_embedded_server_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no address configured, compute_score starts this process's embedded server and scores through it."""
    monkeypatch.setenv("GEAR_SERVER_COMMAND", f"node {GEAR_CLI}")
    samples = make_samples(seed=5, prompts=2, group=2, formats=("official-gear",))

    async def main() -> List[float]:
        return [(await compute_score("hb", s["response"], "", dict(s["extra_info"])))["score"] for s in samples]

    assert asyncio.run(main()) == expected_rewards(samples)


ONE = {"criteria": [{"id": "a", "text": "x", "weight": 1}, {"id": "b", "text": "y", "weight": 2}], "edges": []}


@pytest.mark.parametrize(
    ("extra_info", "kwargs", "error", "path"),
    [
        ({"gear": {"format": "canonical", "rubric": ONE}}, {}, RowError, ("extra_info", "gear_judgments")),
        ({"gear": {"format": "canonical", "rubric": ONE}, "gear_judgments": {"p": [0.5]}}, {}, RowError, ("extra_info", "gear_judgments", "p")),
        ({"gear": {"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "x", "weight": "1"}]}}, "gear_judgments": {"p": [0.5]}},
         {}, RowError, ("extra_info", "gear", "rubric", "criteria", 0, "weight")),
        ({"gear": {"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "x", "weight": 1}], "edges": [{"parent": "a", "child": "z", "relation": "weak"}]}},
          "gear_judgments": {"p": [0.5]}}, {"options": {"onInvalidEdge": "reject"}}, RowError, ("extra_info", "gear", "rubric", "edges", 0)),
        ({"gear": {"format": "ruscarl", "row": {"reward_model": {"rubrics": [{"criterion": "c", "points": 1}]}}}, "gear_judgments": ["{}"]},
         {}, RowError, ("extra_info", "gear", "row", "prompt")),
        ({"gear": {"format": "canonical", "rubric": ONE}, "gear_judgments": {"p": [0.5, 0.5]}}, {"options": {"gamma": "two"}}, ConfigError, ("options", "gamma")),
        ({"gear": {"format": "canonical", "rubric": ONE}, "gear_judgments": {"p": [0.5, 0.5]}}, {"agregator": "gear"}, ConfigError, ("agregator",)),
        (None, {}, RowError, ("extra_info",)),
    ],
)
def test_errors_name_the_row_field(server: EmbeddedServer, extra_info: Any, kwargs: Dict[str, Any], error: type, path: tuple) -> None:
    """Malformed rows, judgments and options raise errors whose path is the field in VERL's terms (server-found ones included)."""

    async def main() -> None:
        await compute_score("hb", "response", "", extra_info, url=server.url, **kwargs)

    with pytest.raises(error) as caught:
        asyncio.run(main())
    assert caught.value.path == path, caught.value


def test_unreadable_judgments_are_counted(server: EmbeddedServer) -> None:
    """Host judge outputs that cannot be read score as not met and are counted in unread_judgments."""
    samples = make_samples(seed=6, prompts=1, group=1, formats=("ruscarl",))
    extra_info = dict(samples[0]["extra_info"])
    count = len(json.loads(extra_info["gear"])["row"]["reward_model"]["rubrics"])
    extra_info["gear_judgments"] = ["garbage"] * count

    async def main() -> Dict[str, Any]:
        return await compute_score("hb", "r", "", extra_info, url=server.url)

    result = asyncio.run(main())
    assert result["unread_judgments"] == count and result["num_criteria"] == count


def test_host_rows_send_no_response_text(server: EmbeddedServer) -> None:
    """Scoring a host row never reads the response (the judge's outputs carry the verdicts): the
    host.scoreBatch request carries each response empty, and the rewards are the CLI's."""
    samples = make_samples(seed=71, prompts=6, group=4, formats=("ruscarl", "gear"))
    for sample in samples:
        sample["response"] = sample["response"] * 200  # a policy's response is KBs long

    async def main(url: str) -> List[float]:
        results = await asyncio.gather(*(compute_score("hb", s["response"], "", dict(s["extra_info"]), url=url)
                                         for s in samples))
        return [r["score"] for r in results]

    with RecordingProxy(server.url) as recorder:
        rewards = asyncio.run(main(recorder.url))
        sent = [r for r in recorder.requests if r["method"] == "host.scoreBatch"]
    assert rewards == expected_rewards(samples)
    items = [item for request in sent for item in request["params"]["items"]]
    assert len(items) == len(samples) and {item["response"] for item in items} == {""}
