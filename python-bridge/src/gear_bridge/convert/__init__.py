"""Dataset converters to gear's VERL row layout; run ``python -m gear_bridge.convert --help``."""

from .healthbench import HEALTHBENCH_FORMATS, healthbench_row
from .official_gear import OFFICIAL_FORMATS, official_gear_row
from .rows_out import write_rows

__all__ = ["HEALTHBENCH_FORMATS", "OFFICIAL_FORMATS", "healthbench_row", "official_gear_row", "write_rows"]
