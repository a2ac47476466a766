"""A paho client for the venue's MQTT, the same for the table's feed (:mod:`venue.table.mqtt`) and the
hub (:mod:`venue.hub.scoreboard`): the credentials and TLS of ``[mqtt]`` (:class:`venue.settings.MqttSettings`),
and the quality of service both publish with."""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from venue.settings import MqttSettings

QOS = 1


def make_client(settings: MqttSettings, client_id: str) -> mqtt.Client:
    """A paho client with the table file's credentials and TLS settings (not connected yet)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set(ca_certs=settings.ca, certfile=settings.cert, keyfile=settings.key,
                       cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        if settings.insecure:
            client.tls_insecure_set(True)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    client.max_queued_messages_set(settings.queue)
    client.max_inflight_messages_set(100)
    return client
