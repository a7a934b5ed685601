"""In-process scoring of judged responses: the same rewards as the gear service, without a round trip.

A reward step whose judgments came with the rows (or from a Python judge) needs no LLM call, and
sending it to the service costs more than the scoring itself (a round trip per chunk under verl's
reward loop, one per response under its legacy naive manager). The VERL glue therefore scores
such responses here first, and sends the service only what this package declines: judge
outputs it cannot read with certainty (every host's usual output is read here), exact inference whose plan costs over
512 table cells a response, options whose arithmetic differs between V8 and CPython, and every
malformed row (the service names the field).
The service stays the reference: tests compare the two on random rubrics, options and outputs.
"""

from .fcp import FcpCounter
from .scorer import IN_PROCESS_METHODS, InProcessScorer, in_process_scorer

__all__ = ["FcpCounter", "IN_PROCESS_METHODS", "InProcessScorer", "in_process_scorer"]
