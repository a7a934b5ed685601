"""Per-process state of the VERL glue: settings from call kwargs, one scorer per event loop.

VERL calls the reward function from several worker processes, each running many calls at once on
one event loop; every call of a loop shares that loop's connection (and rubric registry). A loop
that is gone drops its scorer (weak keys); a forked child builds its own.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import Any, Mapping

from ..asyncio.client import AsyncClient
from ..embedded_server import shared_server_url
from ..exceptions import ConfigError
from ..judge import CallJudgments, Judge
from ..plain_data import plain
from ..protocol import stable_json
from ..scoring import Scorer
from ..settings import ENVIRONMENT, Settings, load_settings

__all__ = ["VERL_EXTRA_KWARGS", "settings_from_kwargs", "shared_scorer"]

#: Keyword arguments VERL itself adds to reward-function calls; accepted and ignored.
VERL_EXTRA_KWARGS = frozenset({"reward_router_address", "reward_model_tokenizer"})

_settings_cache: dict[tuple[str, tuple[str | None, ...]], Settings] = {}
_settings_lock = threading.Lock()
_scorers_lock = threading.Lock()
_scorers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Scorer]] = weakref.WeakKeyDictionary()


def settings_from_kwargs(kwargs: Mapping[str, Any]) -> tuple[Settings, Judge]:
    """Settings and judge from a call's keyword arguments (VERL's ``reward_kwargs``) and the environment.

    Args:
        kwargs: the call's extra keyword arguments; ``judge`` may be a :class:`~gear_bridge.judge.Judge`,
            VERL's own extras are ignored, anything else must be a setting.

    Raises:
        ConfigError: an unknown keyword or a bad value (naming it).
    """
    own = {k: v for k, v in kwargs.items() if k not in VERL_EXTRA_KWARGS}
    judge = own.pop("judge", None)
    if judge is not None and not isinstance(judge, Judge):
        raise ConfigError(("judge",), f"must implement gear_bridge.judge.Judge (an async judge(call) method), got {type(judge).__name__}")
    try:
        text = stable_json(plain(own))
    except (TypeError, ValueError):
        settings = load_settings(**own)
    else:
        key = (text, tuple(os.environ.get(v) for v in ENVIRONMENT.values()))
        with _settings_lock:
            cached = _settings_cache.get(key)
        if cached is None:
            cached = load_settings(**own)
            with _settings_lock:
                if len(_settings_cache) > 256:
                    _settings_cache.clear()
                _settings_cache[key] = cached
        settings = cached
    return settings, judge if judge is not None else CallJudgments(settings.judgments_key)


async def shared_scorer(settings: Settings) -> Scorer:
    """The running loop's scorer for ``settings``' server (an embedded one when ``url`` is None).

    Raises:
        EmbeddedServerError: no server address and no gear command to start one.
    """
    loop = asyncio.get_running_loop()
    key = settings.connection_key()
    with _scorers_lock:  # loops of other threads (the blocking paths' loop thread) share the map
        scorers = _scorers.get(loop)
        if scorers is not None and key in scorers:
            return scorers[key]
    url = settings.url
    if url is None:
        url = await loop.run_in_executor(
            None,
            lambda: shared_server_url(command=settings.server_command, token=settings.token, startup_timeout=settings.startup_timeout),
        )
    with _scorers_lock:
        scorers = _scorers.setdefault(loop, {})
        if key not in scorers:  # another call of this loop may have got here first during the await
            client = AsyncClient(
                url,
                token=settings.token,
                timeout=settings.timeout,
                connect_timeout=settings.connect_timeout,
                reconnect_deadline=settings.reconnect_deadline,
            )
            scorers[key] = Scorer(client, max_rubrics=settings.max_rubrics)
        return scorers[key]
