"""GroupCoalescer: each caller gets its own result; a burst goes out as one send, a pause splits it."""
from __future__ import annotations

import asyncio
from typing import List, Sequence

from gear_bridge.verl.coalescer import GroupCoalescer


def test_a_burst_is_one_send_and_a_pause_starts_another() -> None:
    sent: List[List[int]] = []

    async def send(items: Sequence[int]) -> List[int]:
        sent.append(list(items))
        return [10 * x for x in items]

    async def main() -> List[int]:
        # max_wait 10 s: only idle loop turns can end a burst here.
        coalescer: GroupCoalescer[int, int] = GroupCoalescer(send, group_size=None, max_wait=10.0, idle_turns=3)
        first = [asyncio.ensure_future(coalescer.submit("all", x)) for x in range(5)]
        await asyncio.sleep(0.2)
        second = [asyncio.ensure_future(coalescer.submit("all", x)) for x in range(5, 8)]
        return list(await asyncio.gather(*first, *second))

    assert asyncio.run(main()) == [10 * x for x in range(8)]
    assert sent == [[0, 1, 2, 3, 4], [5, 6, 7]]


def test_max_wait_bounds_a_stream_that_never_pauses() -> None:
    sent: List[List[int]] = []

    async def send(items: Sequence[int]) -> List[int]:
        sent.append(list(items))
        return list(items)

    async def main() -> None:
        coalescer: GroupCoalescer[int, int] = GroupCoalescer(send, group_size=None, max_wait=0.05, idle_turns=None)
        tasks = []
        for x in range(20):  # one every 10 ms, never sent by anything but the timer
            tasks.append(asyncio.ensure_future(coalescer.submit("all", x)))
            await asyncio.sleep(0.01)
        assert await asyncio.gather(*tasks) == list(range(20))

    asyncio.run(main())
    assert [x for batch in sent for x in batch] == list(range(20))
    assert len(sent) >= 3  # ~every 50 ms, not one send after the stream


def test_idle_turns_end_a_burst_without_waiting_for_a_timer() -> None:
    """With idle_turns (and no timer at all), calls that arrive fewer idle loop turns apart are one
    send (verl's calls come a turn or two apart, after their decode), and the next burst is another."""
    sent: List[List[int]] = []

    async def send(items: Sequence[int]) -> List[int]:
        sent.append(list(items))
        return [10 * x for x in items]

    async def late(coalescer: GroupCoalescer[int, int], x: int, turns: int) -> int:
        for _ in range(turns):
            await asyncio.sleep(0)  # one loop turn each
        return await coalescer.submit("all", x)

    async def main() -> List[int]:
        # No max_wait and no quiet: only idle turns can end a burst (without them this would hang,
        # which wait_for turns into a failure).
        coalescer: GroupCoalescer[int, int] = GroupCoalescer(send, group_size=None, max_wait=None, idle_turns=3)
        # Each call two turns after the one before it: never 3 idle turns in a row.
        first = [asyncio.ensure_future(late(coalescer, x, 2 * x)) for x in range(6)]
        done = list(await asyncio.gather(*first))
        second = [asyncio.ensure_future(late(coalescer, x, 0)) for x in range(6, 9)]
        return done + list(await asyncio.gather(*second))

    assert asyncio.run(asyncio.wait_for(main(), 30)) == [10 * x for x in range(9)]
    assert sent == [[0, 1, 2, 3, 4, 5], [6, 7, 8]]


def test_calls_further_apart_than_idle_turns_go_in_separate_sends() -> None:
    sent: List[List[int]] = []

    async def send(items: Sequence[int]) -> List[int]:
        sent.append(list(items))
        return list(items)

    async def main() -> None:
        coalescer: GroupCoalescer[int, int] = GroupCoalescer(send, group_size=None, max_wait=None, idle_turns=3)
        tasks = []
        for x in range(3):
            tasks.append(asyncio.ensure_future(coalescer.submit("all", x)))
            for _ in range(5):  # 5 idle turns between calls
                await asyncio.sleep(0)
        assert await asyncio.gather(*tasks) == [0, 1, 2]

    asyncio.run(asyncio.wait_for(main(), 30))
    assert sent == [[0], [1], [2]]
