from typing import Any, Callable, Optional

__version__: str
FATES: list[str]
TRANSPORT_CALL_COLUMNS: list[str]

class ScenarioError(ValueError):
    path: str
    value: str
    allowed: str

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
