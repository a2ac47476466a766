"""What ``ecarte-table run`` adds for the venue: the page (``--web``, ``[web]``) and MQTT
(``--mqtt``, ``[mqtt]``), as outputs of the table service.

:class:`VenueOutputs` is an :class:`~firmware_host.outputs.OutputSource`: the command line
(``cli/``, the composition's top) registers it with the service's builder, which
knows only that protocol; the outputs are started here and closed by the caller's stack."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from firmware_host.errors import BadInput
from firmware_host.outputs import TableOutput
from firmware_host.referee import PhysicalEvent
from hardware.table import TableConfig
from venue.settings import ListenError, load_sections, split_listen


@dataclass(frozen=True, slots=True)
class VenueOutputs:
    """The page and the MQTT publisher that the command line and the table file ask for.

    :param table_file: the table file, whose ``[web]`` and ``[mqtt]`` sections say (None: the simulated table).
    :param web: ``--web``: ``ADDR:PORT``, ``""`` for the default, None when not asked (the table file may still).
    :param mqtt: ``--mqtt``: ``HOST:PORT``, ``""`` for the default, None when not asked.
    """

    table_file: str | None = None
    web: str | None = None
    mqtt: str | None = None

    def check(self, table: TableConfig) -> None:
        """The ``[web]`` and ``[mqtt]`` sections and their secret files (``token_file``,
        ``password_file``), read and checked before any device starts.

        :raises SettingsError: for a broken section or a secret file that cannot be read.
        """
        load_sections(self.table_file, table_name=table.name)

    def open(self, table: TableConfig, journal: Path | None, control: Callable[[PhysicalEvent], None],
             stack: contextlib.ExitStack) -> list[TableOutput]:
        """The outputs, started; ``stack`` closes them.

        :raises BadInput: for a broken ``[web]``/``[mqtt]`` section, an address the page cannot bind, or
            MQTT that cannot start (IP sockets forbidden): one line, exit 2, never a restart loop.
        """
        web, mqtt = load_sections(self.table_file, table_name=table.name)
        outputs: list[TableOutput] = []
        if self.web is not None or web.enabled:
            if self.web:
                try:
                    host, port = split_listen(self.web)
                except ListenError as exc:
                    raise BadInput(msgid="error.option", option=f"--web {self.web}", why=exc.words) from None
                web = replace(web, host=host, port=port)
            from venue.table.page import TablePage

            page = TablePage(web, table=table.name, journal=journal, control=control, language=table.language)
            try:
                page.start()
            except OSError as exc:
                page.close()
                raise BadInput(msgid="error.page_listen", address=f"{web.host}:{web.port}", reason=exc) from None
            stack.callback(page.close)
            outputs.append(page)
        if self.mqtt is not None or mqtt.enabled:
            if self.mqtt:
                try:
                    host, port = split_listen(self.mqtt, default_port=1883)
                except ListenError as exc:
                    raise BadInput(msgid="error.option", option=f"--mqtt {self.mqtt}", why=exc.words) from None
                mqtt = replace(mqtt, host=host, port=port)
            from venue.table.mqtt import TablePublisher

            publisher = TablePublisher(mqtt, table_name=table.name, journal=journal)
            try:
                publisher.start()
            except OSError as exc:  # retrying would never help: one line, exit 2 (no restart loop)
                raise BadInput(msgid="error.mqtt_start", address=f"{mqtt.host}:{mqtt.port}", reason=exc) from None
            stack.callback(publisher.close)
            outputs.append(publisher)
        return outputs


def page_alone(listen: str, table: TableConfig, journal: Path | None, stack: contextlib.ExitStack) -> list[Any]:
    """The table's page alone (``demo --web``, ``sim --web``), started; ``stack`` closes it. Read-only:
    nothing on the page changes the game.

    :raises BadInput: an address the page cannot bind.
    """
    # the page (it has a ``url``) and nothing else: no [web]/[mqtt] section is read
    return VenueOutputs(web=listen).open(table, journal, lambda event: None, stack)
