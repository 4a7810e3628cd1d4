from typing import Any, Callable, Optional

__version__: str
FATES: list[str]
TRANSPORT_CALL_COLUMNS: list[str]

class ScenarioError(ValueError):
    path: str
    value: str
    allowed: str

class ColumnBuffer:
    """A column's values owned by the core, lent to numpy in place
    (`numpy.asarray(buf)`, writable; the array keeps the buffer alive)."""
    __array_interface__: dict[str, Any]
    def __len__(self) -> int: ...

class PacketTable:
    """The packets table, kept compact by the core and built a column at
    a time when read; `run` and `rescore` return it as `packets`."""
    def names(self) -> list[str]: ...
    def column(self, name: str) -> tuple[Any, ...]: ...
    def __len__(self) -> int: ...

def validate(scenario_json: str) -> str: ...
def run(
    scenario_json: str,
    seed: Optional[int] = None,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[float], None]] = None,
    capture: Optional[list[str]] = None,
    capture_key: str = "capture",
) -> dict[str, Any]: ...
def rescore(
    scenario_json: str, calls: dict[str, Any], packets: dict[str, Any], trace: bool = True
) -> dict[str, Any]: ...
def emodel(extended: bool = False, **params: float) -> dict[str, float]: ...
def emodel_simplified(loss: float, delay_ms: float, codec: str = "G.711") -> float: ...
def mos_from_r(r: float) -> float: ...
def codecs() -> list[dict[str, Any]]: ...
