"""The fields of both sides as trees.

The tool's arguments, and the request an operation takes (its JSON body and its parameters in the
path, the query and the headers).

A field is named by the JSON Pointer an instance of it would have (`/customer/email`, array items as
`*`: `/items/*/sku`), a field outside the body by its location as findings name it
(`query:/page_size`)."""

from dataclasses import dataclass, field

from ...analysis import parameters, path_variables
from ...common.pointers import child
from . import schemas

# levels of nesting compared; deeper fields are left alone (a recursive $ref inlines as {})
MAX_DEPTH = 32


@dataclass
class Field:
    """One field: where it sits, its schema.

    Whether its object requires it, and its own fields."""

    pointer: str
    key: str
    schema: dict
    required: bool = False
    location: str = "body"
    # by key; an array's items under "*"
    children: dict[str, "Field"] = field(default_factory=dict)
    depth: int = 0

    @property
    def types(self):
        return schemas.types(self.schema)

    def walk(self):
        """Yield this field and every field below it."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack += reversed(list(node.children.values()))


def tree(
    pointer: str, key: str, schema, required: bool, location: str = "body", depth: int = 0
) -> Field:
    """Build the field at `pointer` from its schema, with the fields below it.

    Its properties and items."""
    node = Field(
        pointer, key, schema if isinstance(schema, dict) else {}, required, location, depth=depth
    )
    if depth >= MAX_DEPTH:
        return node
    needed = schemas.required(schema)
    for name, sub in schemas.properties(schema).items():
        node.children[name] = tree(
            child(pointer, name), name, sub, name in needed, location, depth + 1
        )
    inner = schemas.items(schema)
    if inner is not None:
        node.children["*"] = tree(f"{pointer}/*", "*", inner, False, location, depth + 1)
    return node


def schema_pointer(pointer: str) -> str:
    """Return where a field is declared inside its root's schema.

    `/customer/email` -> `/properties/customer/properties/email`, an array's items (`*`) under
    `/items`."""
    return "".join(
        "/items" if token == "*" else f"/properties/{token}" for token in pointer.split("/")[1:]
    )


def arguments_tree(contract: dict) -> Field:
    """Return the tool's arguments as a tree rooted at "" (the arguments object)."""
    return tree("", "", contract.get("arguments_schema"), True)


def request_tree(contract: dict) -> Field:
    """Return the request as one tree.

    The body's fields at its root, beside each parameter as `LOCATION:/name` (and a form body's
    fields as `form:/name`)."""
    root = tree("", "", contract.get("request_schema"), True)
    # a form-encoded body's fields, named `form:/amount` as findings name them
    form = contract.get("form_schema")
    needed = schemas.required(form)
    for name, sub in schemas.properties(form).items():
        root.children[f"form:{name}"] = tree(
            f"form:{child('', name)}", name, sub, name in needed, "form", 1
        )
    for (location, name), param in parameters(contract).items():
        required = location == "path" or param.get("required") is True
        schema = param.get("schema") if isinstance(param.get("schema"), dict) else {}
        if isinstance(param.get("description"), str) and not schemas.description(schema):
            # what name pairing may read
            schema = {**schema, "description": param["description"]}
        root.children[f"{location}:{name}"] = tree(
            f"{location}:{child('', name)}", name, schema, required, location, 1
        )
    # a template's variable no parameter declares: a path field all the same
    for name in path_variables(contract):
        if f"path:{name}" not in root.children:
            root.children[f"path:{name}"] = tree(
                f"path:{child('', name)}", name, {}, True, "path", 1
            )
    return root
