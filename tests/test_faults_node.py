"""The fault-injection suite's method-boundary faults, in a Node.js method: each wrong field
and each wrong answer shape a JavaScript module can produce ends exactly as in a Python method
(tests/test_faults_results.py): a verifying card, one row per entry, the faulty entry's error
naming the cause, the others scored as in a clean run."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from fault_probe import FIELD_FAULTS
from faults import assert_accounted, checked_card, write_corpus
from methods_for_tests import needs_node, write_node_probe

pytest_plugins = ["pytester"]
pytestmark = needs_node

#: Answers every entry with its source upper-cased, except where method args ask for a fault:
#: ``path``/``value`` (JSON, or ``expr``, a JavaScript expression) set one field of entry
#: ``target``'s result; ``shape`` breaks the answer.
NODE_PROBE = r"""
module.exports = {
  async translate(sources, context) {
    const args = context.methodArgs;
    const out = context.entries.map((e) => ({
      id: e.id, predicted: e.source.toUpperCase(), latency_s: 0.01,
    }));
    const at = context.entries.findIndex((e) => String(e.id) === args.target);
    if (at < 0) return out;
    if (args.path) {
      const value = args.expr !== undefined
        ? Function(`return (${args.expr})`)()
        : JSON.parse(args.value);
      const [head, tail] = args.path.split('.');
      if (tail) out[at][head] = { ...(out[at][head] || {}), [tail]: value };
      else out[at][head] = value;
    }
    if (args.shape === 'raise') throw new Error('injected fault');
    if (args.shape === 'short') out.splice(at, 1);
    if (args.shape === 'duplicate') out.push({ ...out[at] });
    if (args.shape === 'wrong-id') out[at].id = 'not-in-batch';
    if (args.shape === 'non-list') return { results: out };
    return out;
  },
};
"""
ARGS = {name: {"type": "string"} for name in ("path", "value", "expr", "shape", "target")}


def _travels(value: Any) -> bool:
    """Whether JSON carries the value to JavaScript and back as it is (JavaScript has one
    number type: -1.0 comes back as -1, 10**30 as a float)."""
    try:
        back = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return False
    if isinstance(value, float) and (value.is_integer() or not math.isfinite(value)):
        return False
    if isinstance(value, int) and abs(value) >= 2**53:
        return False
    return bool(back == value and type(back) is type(value))


#: The Python suite's field faults that a JavaScript value can be, with the same words.
SAME = sorted(name for name, (_, value, _) in FIELD_FAULTS.items() if _travels(value))
#: Numbers JSON cannot carry: the Node runner turns them into the entry's error.
NON_FINITE = {
    "latency-inf": ("latency_s", "Infinity", "latency_s must be a finite number"),
    "latency-nan": ("latency_s", "NaN", "latency_s must be a finite number"),
    "cost-inf": ("cost_usd", "-Infinity", "cost_usd must be a finite number"),
    "metadata-nan": ("metadata", "{score: NaN}", "metadata.score must be a finite number"),
    "metadata-bigint": ("metadata", "{n: 10n}", "not plain JSON"),
    "latency-integer-float": ("latency_s", "-1.0", "latency_s must not be negative, got int"),
}
SHAPES = {
    "raise": ("method raised Error: injected fault", {"1", "2"}),
    "short": ("method returned no result for entry id", {"2"}),
    "duplicate": ("method returned 2 results for entry id", {"2"}),
    "wrong-id": ("method returned no result for entry id", {"2"}),
    "non-list": ("method returned object, not a list", {"1", "2"}),
}


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    corpus = write_corpus(pytester.path)
    probe = write_node_probe(pytester.path, NODE_PROBE, args=ARGS)
    card = pytester.path / "card.json"
    result = pytester.runpytest(
        f"--mteval-corpus={corpus}", f"--mteval-method={probe}", "--mteval-batch-size=2",
        f"--mteval-run-card={card}", "--mteval-method-arg=target=2",
        *(f"--mteval-method-arg={a}" for a in args),
    )  # fmt: skip
    return result, checked_card(card)


def test_most_field_faults_travel_from_javascript() -> None:
    assert len(SAME) >= 30  # the suite is not emptied by the filter


@pytest.mark.parametrize("fault", SAME)
def test_a_wrong_field_is_that_entrys_error(pytester: pytest.Pytester, fault: str) -> None:
    path, value, words = FIELD_FAULTS[fault]
    result, card = run(pytester, f"path={path}", f"value={json.dumps(value)}")
    assert_accounted(card, {"2"}, f"entry 2: {words}")
    result.assert_outcomes(passed=3, failed=1)
    assert card["runner"]["runtime"] == "node"


@pytest.mark.parametrize("fault", sorted(NON_FINITE))
def test_a_number_json_cannot_carry_is_that_entrys_error(
    pytester: pytest.Pytester, fault: str
) -> None:
    path, expr, words = NON_FINITE[fault]
    result, card = run(pytester, f"path={path}", f"expr={expr}")
    assert_accounted(card, {"2"}, f"entry 2: {words}")
    result.assert_outcomes(passed=3, failed=1)


@pytest.mark.parametrize("fault", sorted(SHAPES))
def test_a_wrong_answer_shape_is_an_error_on_its_entries(
    pytester: pytest.Pytester, fault: str
) -> None:
    words, faulty = SHAPES[fault]
    result, card = run(pytester, f"shape={fault}")
    assert_accounted(card, faulty, words)
    result.assert_outcomes(passed=4 - len(faulty), failed=len(faulty))
