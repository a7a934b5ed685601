"""Plain JSON values from what VERL hands over: OmegaConf containers, numpy arrays and scalars.

VERL merges ``reward_kwargs`` with ``dict(...)``, so nested values stay OmegaConf ``DictConfig`` /
``ListConfig``; rows read from parquet hold numpy arrays where the JSON had lists. The wire needs
plain ``dict`` / ``list`` / ``str`` / ``int`` / ``float`` / ``bool`` / ``None``.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["plain"]


def plain(value: Any) -> Any:
    """Returns ``value`` as plain JSON data (a copy for containers); leaves unknown objects as they are.

    Args:
        value: a mapping, sequence, numpy array or scalar, or a JSON scalar.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, str) else k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)  # numpy arrays and numpy scalars
    if callable(tolist) and hasattr(value, "dtype"):
        return plain(tolist())
    if isinstance(value, bytes):
        return value
    # Other sequences (OmegaConf ListConfig) iterate like lists; mappings were handled above.
    if hasattr(value, "__iter__") and hasattr(value, "__len__") and hasattr(value, "__getitem__"):
        return [plain(v) for v in value]
    return value
