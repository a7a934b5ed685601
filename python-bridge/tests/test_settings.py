"""Settings from keyword arguments and environment variables."""
from __future__ import annotations

import pytest

from gear_bridge import ConfigError, load_settings


def test_defaults() -> None:
    """With nothing set: embedded server, the gear aggregator, 30 s per request, 5 ms group wait."""
    settings = load_settings(env={})
    assert settings.url is None
    assert settings.aggregator == "gear"
    assert settings.host is None
    assert settings.timeout == 30.0
    assert settings.group_wait == 0.005
    assert settings.judgments_key == "gear_judgments"


def test_environment_is_read_and_keywords_win() -> None:
    """GEAR_* variables set values; keyword arguments override them."""
    env = {
        "GEAR_BRIDGE_URL": "ws://127.0.0.1:9/",
        "GEAR_TOKEN": "t" * 16,
        "GEAR_AGGREGATOR": "flat",
        "GEAR_HOST": "merf",
        "GEAR_TIMEOUT": "none",
        "GEAR_OPTIONS": '{"gamma": 2, "normalize": "abs-sum"}',
        "GEAR_SERVER_COMMAND": "node '/x y/main.js'",
    }
    settings = load_settings(env=env)
    assert settings.url == "ws://127.0.0.1:9/"
    assert settings.aggregator == "flat"
    assert settings.host == "merf"
    assert settings.timeout is None
    assert settings.options == {"gamma": 2, "normalize": "abs-sum"}
    assert settings.server_command == ("node", "/x y/main.js")
    overridden = load_settings(env=env, aggregator="gear-exact", timeout=2.5, options={"gamma": 0.5})
    assert (overridden.aggregator, overridden.timeout, overridden.options) == ("gear-exact", 2.5, {"gamma": 0.5})


@pytest.mark.parametrize(
    ("env", "kwargs", "path"),
    [
        ({"GEAR_TIMEOUT": "soon"}, {}, ("GEAR_TIMEOUT",)),
        ({"GEAR_AGGREGATOR": "mean"}, {}, ("GEAR_AGGREGATOR",)),
        ({"GEAR_OPTIONS": "{gamma: 2}"}, {}, ("GEAR_OPTIONS",)),
        ({"GEAR_BRIDGE_URL": "http://x"}, {}, ("GEAR_BRIDGE_URL",)),
        ({}, {"agregator": "gear"}, ("agregator",)),
        ({}, {"timeout": -1}, ("timeout",)),
        ({}, {"timeout": float("nan")}, ("timeout",)),
        ({}, {"host": "verl"}, ("host",)),
        ({}, {"options": [1, 2]}, ("options",)),
        ({}, {"judge_max_concurrent": 0}, ("judge_max_concurrent",)),
        ({}, {"in_process": True}, ("in_process",)),
        ({"GEAR_JUDGE_ROUTING": "round-robin"}, {}, ("GEAR_JUDGE_ROUTING",)),
    ],
)
def test_bad_settings_name_the_field(env: dict, kwargs: dict, path: tuple) -> None:
    """A bad value or an unknown keyword raises ConfigError whose path names the variable or keyword."""
    with pytest.raises(ConfigError) as caught:
        load_settings(env=env, **kwargs)
    assert caught.value.path == path


def test_omegaconf_options_become_plain() -> None:
    """Options given as an OmegaConf node (as VERL passes nested reward_kwargs) become a plain dict."""
    from omegaconf import OmegaConf

    node = OmegaConf.create({"options": {"retention": {"weak": 0.5}, "gamma": 2}})
    settings = load_settings(env={}, options=node.options)
    assert settings.options == {"retention": {"weak": 0.5}, "gamma": 2}
    assert type(settings.options) is dict
