"""Honour X-Forwarded-* headers from the configured reverse proxies only.

TRACEDIFF_TRUSTED_PROXIES."""

import ipaddress

from werkzeug.middleware.proxy_fix import ProxyFix


def trusted_networks(value: str) -> tuple:
    """Parse a comma-separated list of addresses and CIDR networks.

    Raise ValueError naming a bad one."""
    networks = []
    for part in (p.strip() for p in str(value or "").split(",")):
        if part:
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(
                    f"TRACEDIFF_TRUSTED_PROXIES: {part!r} is not an address or network"
                ) from None
    return tuple(networks)


class TrustedProxies:
    """WSGI middleware.

    ProxyFix for requests whose peer is a trusted proxy, nothing for anyone else.

    ProxyFix alone trusts whoever connects; a client reaching the port directly could then claim any
    address in the access log or any scheme and host.
    """

    def __init__(self, app, networks: tuple):
        self.app = app
        self.networks = networks
        # one proxy hop (nginx in front): it appends the address it saw to X-Forwarded-For
        self.fixed = ProxyFix(app, x_for=1, x_proto=1, x_host=1, x_port=1, x_prefix=1)

    def __call__(self, environ, start_response):
        if self.trusted(environ.get("REMOTE_ADDR", "")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)

    def trusted(self, address: str) -> bool:
        try:
            peer = ipaddress.ip_address(address)
        # a unix socket peer has no address
        except ValueError:
            return False
        return any(peer in network for network in self.networks)


def init_app(app) -> None:
    """Wrap the app when proxies are configured."""
    networks = trusted_networks(app.config["TRUSTED_PROXIES"])
    if networks:
        app.wsgi_app = TrustedProxies(app.wsgi_app, networks)
