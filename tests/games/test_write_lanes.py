"""Word-path writes take turns per client address (games.writers lanes): one address's
backlog waits behind itself, not in front of other players' words."""

from __future__ import annotations

import asyncio

from games import writers


async def test_one_address_has_at_most_its_width_in_flight_and_others_pass_it() -> None:
    lanes = writers.Lanes(width=2)
    in_flight: dict[str, int] = {"mob": 0, "other": 0}
    most: dict[str, int] = {"mob": 0, "other": 0}
    release = asyncio.Event()
    order: list[str] = []

    async def call(key: str, name: str) -> None:
        async with lanes.lane(key):
            in_flight[key] += 1
            most[key] = max(most[key], in_flight[key])
            order.append(name)
            if key == "mob":
                await release.wait()
            in_flight[key] -= 1

    mob = [asyncio.create_task(call("mob", f"mob{index}")) for index in range(10)]
    await asyncio.sleep(0)
    other = asyncio.create_task(call("other", "other"))
    await asyncio.wait_for(other, 1)  # not queued behind the mob's eight waiting calls
    assert order[:3] == ["mob0", "mob1", "other"]
    assert lanes.waiting() == 10

    release.set()
    await asyncio.gather(*mob)
    assert most == {"mob": 2, "other": 1}
    assert order[3:] == [f"mob{index}" for index in range(2, 10)]  # in the order they came
    assert lanes.waiting() == 0  # no key kept once its calls are done


async def test_no_address_goes_straight_through() -> None:
    lanes = writers.Lanes(width=1)
    entered = 0
    gate = asyncio.Event()

    async def call() -> None:
        nonlocal entered
        async with lanes.lane(None):
            entered += 1
            await gate.wait()

    tasks = [asyncio.create_task(call()) for _ in range(5)]
    await asyncio.sleep(0)
    assert entered == 5
    gate.set()
    await asyncio.gather(*tasks)
