"""A small maximum-weight bipartite matching.

Hungarian on small components, greedy on big ones."""

# nodes per side of a component; O(n^3) stays under ~100k steps
HUNGARIAN_AT_MOST = 40
# cost of a pair that is no candidate: fewer of them beats any score
_MISSING = 1e6


def solve(n_left: int, n_right: int, edges: dict) -> list[tuple[int, int]]:
    """Return (i, j) pairs: as many candidates paired as can be, best total score.

    How many pair comes first, then their total score."""
    out = []
    for lefts, rights in _components(edges):
        if len(lefts) <= HUNGARIAN_AT_MOST and len(rights) <= HUNGARIAN_AT_MOST:
            out += _hungarian(lefts, rights, edges)
        else:
            out += _greedy(lefts, rights, edges)
    return sorted(out)


def _components(edges: dict) -> list[tuple[list, list]]:
    """Split the candidate graph into connected components (union-find)."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in edges:
        a, b = find(("l", i)), find(("r", j))
        if a != b:
            parent[a] = b
    groups = {}
    for node in list(parent):
        side, index = node
        groups.setdefault(find(node), ([], []))[side == "r"].append(index)
    return [(sorted(set(ls)), sorted(set(rs))) for ls, rs in groups.values()]


def _greedy(lefts, rights, edges) -> list[tuple[int, int]]:
    wanted = set(lefts)
    ranked = sorted(
        ((s, i, j) for (i, j), s in edges.items() if i in wanted), key=lambda t: (-t[0], t[1], t[2])
    )
    used_left, used_right, out = set(), set(), []
    for _, i, j in ranked:
        if i not in used_left and j not in used_right:
            used_left.add(i)
            used_right.add(j)
            out.append((i, j))
    return out


def _hungarian(lefts, rights, edges) -> list[tuple[int, int]]:
    """Assign the smaller side into the larger at minimum cost.

    With potentials, O(n^2 m)."""
    flip = len(lefts) > len(rights)
    rows, cols = (rights, lefts) if flip else (lefts, rights)

    def cost(r, c):
        key = (cols[c], rows[r]) if flip else (rows[r], cols[c])
        return -edges[key] if key in edges else _MISSING

    n, m = len(rows), len(cols)
    u, v, match, way = [0.0] * (n + 1), [0.0] * (m + 1), [0] * (m + 1), [0] * (m + 1)
    for r in range(1, n + 1):
        match[0], col = r, 0
        low, used = [float("inf")] * (m + 1), [False] * (m + 1)
        while match[col]:
            used[col], row, delta, nxt = True, match[col], float("inf"), 0
            for c in range(1, m + 1):
                if not used[c]:
                    cur = cost(row - 1, c - 1) - u[row] - v[c]
                    if cur < low[c]:
                        low[c], way[c] = cur, col
                    if low[c] < delta:
                        delta, nxt = low[c], c
            for c in range(m + 1):
                if used[c]:
                    u[match[c]] += delta
                    v[c] -= delta
                else:
                    low[c] -= delta
            col = nxt
        while col:
            prev = way[col]
            match[col] = match[prev]
            col = prev
    out = []
    for c in range(1, m + 1):
        if match[c]:
            r, cc = rows[match[c] - 1], cols[c - 1]
            pair = (cc, r) if flip else (r, cc)
            if pair in edges:
                out.append(pair)
    return out
