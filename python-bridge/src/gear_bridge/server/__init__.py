"""The gear service's lifecycle: find its command, run it per process or once per machine."""

from .embedded import EmbeddedServer, find_server_command, shared_server_url, stop_shared_server
from .machine import machine_server_url

__all__ = ["EmbeddedServer", "find_server_command", "shared_server_url", "stop_shared_server", "machine_server_url"]
