"""What ``ecarte-table run`` adds for the venue: the page (``--web``, ``[web]``) and MQTT
(``--mqtt``, ``[mqtt]``), as outputs of the table service. Called by the composition root
(:func:`firmware_host.app.run_service`); the outputs are started here and closed by the caller."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from firmware_host.errors import BadInput
from firmware_host.referee.transcript import PhysicalEvent
from hardware.table import TableConfig
from venue.settings import load_sections, split_listen


def venue_outputs(args: argparse.Namespace, table: TableConfig, journal: Path | None,
                  control: Callable[[PhysicalEvent], None], stack: contextlib.ExitStack) -> list[Any]:
    """The page and the MQTT publisher the command line and the table file ask for, started;
    ``stack`` closes them.

    :raises BadInput: for a broken ``[web]``/``[mqtt]`` section, an address the page cannot bind, or
        MQTT that cannot start (IP sockets forbidden): one line, exit 2, never a restart loop.
    """
    web, mqtt = load_sections(getattr(args, "table", None), table_name=table.name)
    outputs: list[Any] = []
    web_arg = getattr(args, "web", None)
    if web_arg is not None or web.enabled:
        if web_arg:
            try:
                host, port = split_listen(web_arg)
            except ValueError as exc:
                raise BadInput(f"--web {web_arg}: {exc}") from None
            web = replace(web, host=host, port=port)
        from venue.page import TablePage

        page = TablePage(web, table=table.name, journal=journal, control=control, language=table.language)
        try:
            page.start()
        except OSError as exc:
            page.close()
            raise BadInput(f"the page cannot listen on {web.host}:{web.port}: {exc.strerror or exc}") from None
        stack.callback(page.close)
        outputs.append(page)
    mqtt_arg = getattr(args, "mqtt", None)
    if mqtt_arg is not None or mqtt.enabled:
        if mqtt_arg:
            try:
                host, port = split_listen(mqtt_arg, default_port=1883)
            except ValueError as exc:
                raise BadInput(f"--mqtt {mqtt_arg}: {exc}") from None
            mqtt = replace(mqtt, host=host, port=port)
        from venue.mqtt import TablePublisher

        publisher = TablePublisher(mqtt, table_name=table.name, journal=journal)
        try:
            publisher.start()
        except OSError as exc:  # retrying would never help: one line, exit 2 (no restart loop)
            raise BadInput(f"MQTT to {mqtt.host}:{mqtt.port} cannot start: {exc.strerror or exc}") from None
        stack.callback(publisher.close)
        outputs.append(publisher)
    return outputs
