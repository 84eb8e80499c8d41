"""Name a located call's request fields as findings do outside the analysis.

The fields of its result, as `query:/page_size`."""

from .locations import Request, external


def _end(end: dict | None) -> dict | None:
    if end and end["snapshot"] == "request":
        return {**end, "path": external(end["path"])}
    return end


def _finding(f: dict) -> dict:
    f["left"], f["right"] = _end(f["left"]), _end(f["right"])
    for example in f.get("examples") or ():
        example["left"], example["right"] = _end(example.get("left")), _end(example.get("right"))
    return f


def located_result(result: dict, wire: Request, back: dict) -> dict:
    """Rewrite a result's internal request pointers as external names, in place.

    `/query:/page_size` -> `query:/page_size`."""
    sides = []
    for f in result["findings"]:
        sides.append(((f["left"] or {}).get("snapshot"), (f["right"] or {}).get("snapshot")))
        _finding(f)
    for row in result["alignment"]:
        if row.get("request") is not None:
            row["request"] = external(row["request"])
    for index, places in (result.get("places") or {}).items():
        left, right = sides[int(index)]
        for place in places:
            place[0] = (
                external(place[0]) if left == "request" and place[0] is not None else place[0]
            )
            place[1] = (
                external(place[1]) if right == "request" and place[1] is not None else place[1]
            )
    # its rows are read against the request's URL and headers too (alignment/rows.py)
    result["located"] = True
    # what the request was read by (the contract's template)
    result["request_template"] = wire.template
    # what it shows: that, or the segments arguments explain
    result["url_template"] = wire.url_template(back)
    return result
