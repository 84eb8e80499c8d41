"""Which Host headers a request may carry, against DNS rebinding.

And which addresses are loopback. Pure.

A page on attacker.example whose name is re-pointed at 127.0.0.1 reaches a local tracediff with
`Host: attacker.example`: refusing unknown names stops it. An IP address as Host cannot be
re-pointed, so every address is accepted; names must be listed (loopback names always are).
"""

import ipaddress
import socket

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


def host_name(header: str) -> str:
    """Return the host of a Host header without port, brackets, trailing dot or case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def allowed_hosts(setting: str, serving_host: str = "") -> frozenset[str]:
    """Return the names a Host header may carry.

    The setting's, the served host's, loopback names."""
    names = {host_name(item) for item in str(setting or "").split(",") if item.strip()}
    if serving_host and not _is_address(host_name(serving_host)):
        names.add(host_name(serving_host))
    return frozenset(names | LOOPBACK_NAMES)


def host_allowed(header: str, allowed: frozenset[str]) -> bool:
    """Say whether a Host header names this server.

    An address, a listed name, `.suffix` or `*`."""
    host = host_name(header)
    if not host or "*" in allowed or _is_address(host) or host in allowed:
        return True
    # *.localhost never leaves the machine (RFC 6761, and browsers resolve it themselves)
    return host.endswith(".localhost") or any(
        name.startswith(".") and (host.endswith(name) or host == name[1:]) for name in allowed
    )


def is_loopback(host: str) -> bool:
    """Say whether every address a host name or address resolves to is a loopback one."""
    host = host_name(host)
    if host in LOOPBACK_NAMES:
        return True
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return False
    return bool(infos) and all(
        ipaddress.ip_address(info[4][0].split("%", 1)[0]).is_loopback for info in infos
    )
