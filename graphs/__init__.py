"""attnio.graphs — see README.md for what this package holds."""

__all__: list[str] = []
