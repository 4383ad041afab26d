"""A method's setup checked when the run starts: built, able to translate, and able to say
what the card records of it, so that a broken method stops the run with one message instead
of failing every entry."""

from __future__ import annotations

from pytest_mteval.methods.loader import MethodLoadError
from pytest_mteval.run.result_model import ResultProblem, validate_method_fields
from pytest_mteval.run.run_state import RunState


def check_method(state: RunState) -> None:
    """Build the method and let it check its setup now, so that a broken method stops the
    run with one message instead of failing every entry."""
    try:
        method = state.method
        prepare = getattr(method, "prepare", None)
        if callable(prepare):
            prepare(state.run_config)
    except MethodLoadError:
        raise
    except Exception as exc:
        raise MethodLoadError(f"method {state.source.name!r} cannot start: {exc}") from None
    if not callable(getattr(method, "translate", None)):
        raise MethodLoadError(f"method {state.source.name!r} has no translate(entries, config)")
    check_method_fields(state, method)


def check_method_fields(state: RunState, method: object) -> None:
    """What the method says about itself for the card is checked now, not at the end."""
    name = state.source.name
    try:
        describe = getattr(method, "system_prompt", None)
        prompt = describe(state.run_config) if callable(describe) else ""
        fields = getattr(method, "run_card_fields", None)
        card_fields = fields(state.run_config) if callable(fields) else {}
        tools = getattr(method, "tools_enabled", None)
        tools = [] if tools is None else tools
    except ResultProblem as exc:
        raise MethodLoadError(str(exc)) from None
    except Exception as exc:
        raise MethodLoadError(
            f"method {name!r} cannot describe itself: {type(exc).__name__}: {exc}"
        ) from None
    try:
        validate_method_fields(name, prompt, tools, card_fields)
    except ResultProblem as exc:
        raise MethodLoadError(str(exc)) from None
