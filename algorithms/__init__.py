"""attnio.algorithms — see README.md for what this package holds."""

__all__: list[str] = []
