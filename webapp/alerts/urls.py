"""Webhook URLs are checked when a rule is made and again before each delivery, after DNS resolution.

Loopback, link-local (cloud metadata at 169.254.169.254 among them), unspecified and multicast
addresses are refused unless TRACEDIFF_WEBHOOK_ALLOW_HOSTS names the host or a range holding it.
"""
import ipaddress
import socket
from urllib.parse import urlsplit

METADATA_HOSTS = {"metadata.google.internal", "metadata", "instance-data"}


class UrlRefused(ValueError):
    """A webhook URL that may not be called; the message says why."""


def allow_list(setting: str) -> tuple[set[str], list]:
    """Parse TRACEDIFF_WEBHOOK_ALLOW_HOSTS: host names and CIDR ranges, comma-separated."""
    hosts, networks = set(), []
    for item in (part.strip() for part in (setting or "").split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            hosts.add(item.lower())
    return hosts, networks


def check_url(url: str, allowed: tuple[set[str], list]) -> list[str]:
    """Return the addresses a webhook URL may be called at, or raise UrlRefused."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UrlRefused("only http:// and https:// URLs with a host can receive alerts")
    host = parts.hostname.lower()
    hosts, networks = allowed
    if host in METADATA_HOSTS and host not in hosts:
        raise UrlRefused(f"{host} is a cloud metadata service")
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise UrlRefused(f"{host} does not resolve: {error}") from error
    addresses = sorted({info[4][0] for info in infos})
    for text in addresses:
        address = ipaddress.ip_address(text.split("%")[0])
        if _internal(address) and host not in hosts and not any(address in net for net in networks):
            raise UrlRefused(f"{host} resolves to {address}, a loopback, link-local or reserved address; "
                             "allow it with TRACEDIFF_WEBHOOK_ALLOW_HOSTS")
    return addresses


def _internal(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    address = mapped or address
    return address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast \
        or address.is_reserved
