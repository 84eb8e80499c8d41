"""The one error of contract handling, carrying the API error code and status."""


class ContractError(ValueError):
    """A contract or a document that cannot become one.

    With the API error code and status."""

    def __init__(self, message: str, code: str = "bad_contract", status: int = 400):
        super().__init__(message)
        self.code, self.status = code, status
