"""The bundled offline demo news site (generator + a loopback HTTP server)."""

from .server import DemoServer
from .site import DemoSite

__all__ = ["DemoServer", "DemoSite"]
