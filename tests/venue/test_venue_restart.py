"""Nothing lost at the venue, in a real browser with the hub's own Mosquitto: the hub
killed with -9 while the tables play (its broker goes with it, so the tables lose the broker for a
while) comes back with the scoreboard rebuilt from the retained topics and the tables' journals;
the games the tables finished meanwhile arrive, in order, and no game or hand shows twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import MOSQUITTO, feed, free_port, make_service, whole_game
from waiting import wait_for

from firmware_host.referee.transcript import ButtonEvent
from firmware_host.service import TableService
from venue.settings import MqttSettings
from venue.table.mqtt import TablePublisher

TIMEOUT_MS = 30_000


def start_hub(venue_file: Path, port: int) -> subprocess.Popen[bytes]:
    hub = subprocess.Popen([sys.executable, "-m", "cli.main", "hub", str(venue_file)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def up() -> bool:
        assert hub.poll() is None, hub.stderr.read().decode() if hub.stderr else ""
        try:
            return httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(up, "the hub")
    return hub


def play_game(service: TableService, seed: int) -> None:
    for event in whole_game(seed):
        feed(service, event)
    feed(service, ButtonEvent("A", "yes"))  # the next game


def test_the_hub_killed_while_tables_play_loses_nothing(browser: Any, tmp_path: Path) -> None:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    tmp_path.chmod(0o755)
    hub_port, broker_port = free_port(), free_port()
    venue_file = tmp_path / "venue.toml"
    venue_file.write_text(f'[hub]\nvenue = "club"\nlisten = "127.0.0.1:{hub_port}"\n[broker]\nmode = "mosquitto"\n'
                          f'listen = "127.0.0.1:{broker_port}"\n[tables]\nnames = ["t1", "t2"]\n')
    hub = start_hub(venue_file, hub_port)
    tables: dict[str, tuple[TableService, TablePublisher]] = {}
    try:
        for name in ("t1", "t2"):
            service = make_service(tmp_path / f"{name}.sqlite")
            password = (tmp_path / "venue-hub" / "secrets" / f"{name}.pass").read_text().strip()
            publisher = TablePublisher(MqttSettings(port=broker_port, venue="club", table=name, enabled=True,
                                                    username=name, password=password), table_name=name,
                                       journal=Path(service.journal.path))
            publisher.start()
            assert publisher.connected.wait(20)
            service.outputs.append(publisher)
            tables[name] = (service, publisher)
        tab = browser.new_page()
        tab.goto(f"http://127.0.0.1:{hub_port}/")
        tab.wait_for_selector("#conn:text('live')", timeout=TIMEOUT_MS)
        for (service, _), seed in zip(tables.values(), (4, 11), strict=True):
            play_game(service, seed)
        tab.wait_for_function("window.__standings && window.__standings.games === 2", timeout=TIMEOUT_MS)

        # the hub dies without a word; its Mosquitto goes with it: the tables lose the broker
        os.kill(hub.pid, signal.SIGKILL)
        hub.wait(10)
        wait_for(lambda: not any(p.connected.is_set() for _, p in tables.values()), "the tables to lose the broker")
        for (service, _), seed in zip(tables.values(), (5, 12), strict=True):
            play_game(service, seed)  # while the broker is away
        last = {name: service.outputs[0].outcomes[-1].snapshot for name, (service, _) in tables.items()}  # type: ignore[attr-defined]

        hub = start_hub(venue_file, hub_port)
        # the browser's stream reconnects by itself; the scoreboard is rebuilt
        tab.wait_for_function("window.__standings && window.__standings.games === 4", timeout=TIMEOUT_MS)
        for name, snapshot in last.items():
            tab.wait_for_function(f"window.__tables.get('{name}') && window.__tables.get('{name}').availability "
                                  f"=== 'online' && window.__tables.get('{name}').phase === '{snapshot.view.phase}'",
                                  timeout=TIMEOUT_MS)
        wait_for(lambda: all(p.connected.is_set() for _, p in tables.values()), "the tables back")
        tab.wait_for_timeout(1000)  # anything sent twice would have come by now
        standings = tab.evaluate("window.__standings")
        assert standings["games"] == 4
        assert sum(row["played"] for row in standings["ranking"]) == 8
        for name in tables:
            games = httpx.get(f"http://127.0.0.1:{hub_port}/api/tables/{name}/games", timeout=5).json()
            assert [g["game"] for g in games] == [1, 2], games
            for game in games:
                numbers = [h["hand"] for h in game["hands"]]
                assert numbers == list(range(1, len(numbers) + 1)) and numbers, numbers
        record = json.loads(httpx.get(f"http://127.0.0.1:{hub_port}/api/tables/t1/record.json", timeout=5).text)
        assert record["hands"] == []  # the third game has just begun at t1
    finally:
        for service, publisher in tables.values():
            publisher.close()
            service.journal.close()
        hub.terminate()
        hub.wait(10)
