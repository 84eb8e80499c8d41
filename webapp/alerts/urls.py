"""Webhook URLs are checked when a rule is made and before each delivery.

Again before each delivery, after DNS resolution.

Loopback, link-local (cloud metadata at 169.254.169.254 among them), unspecified, multicast and
reserved addresses, and the other clouds' metadata addresses, are refused unless
TRACEDIFF_WEBHOOK_ALLOW_HOSTS names the host or a range holding it. Private ranges (10/8, 172.16/12,
192.168/16, fc00::/7) stay allowed: in-house receivers live there.
"""

import ipaddress
import socket
from urllib.parse import urlsplit

METADATA_HOSTS = {"metadata.google.internal", "metadata.goog", "metadata", "instance-data"}
# Cloud metadata and host services outside link-local: AWS IMDS over IPv6, GCP's IPv6 metadata,
# Alibaba's metadata, Azure's wire server, Oracle's legacy metadata. Each answers with credentials
# or host control.
METADATA_ADDRESSES = {
    ipaddress.ip_address(text)
    for text in ("fd00:ec2::254", "fd20:ce::254", "100.100.100.200", "168.63.129.16", "192.0.0.192")
}


class UrlRefused(ValueError):
    """A webhook URL that may not be called; the message says why."""


def allow_list(setting: str) -> tuple[set[str], list]:
    """Parse TRACEDIFF_WEBHOOK_ALLOW_HOSTS.

    Host names and CIDR ranges, comma-separated."""
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
    parts = parse_url(url)
    host = parts.hostname.lower()
    hosts, networks = allowed
    if host in METADATA_HOSTS and host not in hosts:
        raise UrlRefused(f"{host} is a cloud metadata service")
    try:
        infos = socket.getaddrinfo(
            host, parts.port or (443 if parts.scheme == "https" else 80), type=socket.SOCK_STREAM
        )
    except (socket.gaierror, UnicodeError, ValueError) as error:
        raise UrlRefused(f"{host} does not resolve: {error}") from error
    addresses = sorted({info[4][0] for info in infos})
    for text in addresses:
        address = ipaddress.ip_address(text.split("%")[0])
        if _metadata(address) and host not in hosts and not any(address in net for net in networks):
            raise UrlRefused(
                f"{host} resolves to {address}, a cloud metadata address; allow it with "
                "TRACEDIFF_WEBHOOK_ALLOW_HOSTS"
            )
        if _internal(address) and host not in hosts and not any(address in net for net in networks):
            raise UrlRefused(
                f"{host} resolves to {address}, a loopback, link-local or reserved address; "
                "allow it with TRACEDIFF_WEBHOOK_ALLOW_HOSTS"
            )
    return addresses


def parse_url(url: str):
    """Split a webhook URL, or raise UrlRefused unless it is a whole http(s) one.

    Refused: a bad port, a broken [IPv6]."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it checks it: 0-65535, digits only
    except ValueError as error:
        raise UrlRefused(f"url is not a valid URL: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UrlRefused("only http:// and https:// URLs with a host can receive alerts")
    if parts.port == 0:
        raise UrlRefused("url is not a valid URL: port 0")
    return parts


def _metadata(address) -> bool:
    return (getattr(address, "ipv4_mapped", None) or address) in METADATA_ADDRESSES


def _internal(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    address = mapped or address
    return (
        address.is_loopback
        or address.is_link_local
        or address.is_unspecified
        or address.is_multicast
        or address.is_reserved
    )
