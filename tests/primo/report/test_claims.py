"""The shared claim structure: paired bootstrap, verdicts, JSON round trip, Markdown table."""
import json
import math

import numpy as np
import pytest

from primo.report.claims import Claim, PairedDifference, claims_table, paired_bootstrap, verdict


def test_paired_bootstrap_pairs_units_and_reports_median():
    rng = np.random.default_rng(0)
    base = rng.normal(100, 30, size=40)  # large between-unit spread ...
    a, b = base - 1.0 + rng.normal(0, 0.1, 40), base  # ... but a is lower by 1 on every unit
    d = paired_bootstrap(a, b, n_resamples=1000)
    assert d.n == 40 and d.mean == pytest.approx(np.mean(a - b))
    assert d.median == pytest.approx(np.median(a - b))
    # Paired: the interval reflects the 0.1 noise of the differences, not the 30 spread of the units.
    assert d.low <= d.mean <= d.high and d.high < 0 and d.high - d.low < 0.2


def test_paired_bootstrap_is_deterministic_for_a_seed():
    a, b = [3.0, 1.0, 4.0, 1.0, 5.0], [2.0, 7.0, 1.0, 8.0, 2.0]
    assert paired_bootstrap(a, b, random_state=3) == paired_bootstrap(a, b, random_state=3)


def test_paired_bootstrap_single_unit_has_no_interval():
    d = paired_bootstrap([2.0], [1.0])
    assert d.mean == 1.0 and d.median == 1.0 and math.isnan(d.low) and math.isnan(d.high)
    assert verdict(d, "higher") == "within noise"


@pytest.mark.parametrize("a, b, message", [([1.0, 2.0], [1.0], "differ in length"), ([], [], "empty"),
                                           ([1.0, np.nan], [1.0, 2.0], "NaN")])
def test_paired_bootstrap_rejects_bad_input(a, b, message):
    with pytest.raises(ValueError, match=message):
        paired_bootstrap(a, b)


@pytest.mark.parametrize("low, high, expected, result", [
    (-3.0, -1.0, "lower", "holds"), (-3.0, -1.0, "higher", "does not hold"),
    (1.0, 2.0, "higher", "holds"), (1.0, 2.0, "lower", "does not hold"),
    (-1.0, 2.0, "lower", "within noise"), (0.0, 2.0, "higher", "within noise"),
])
def test_verdict_follows_interval_and_direction(low, high, expected, result):
    assert verdict(PairedDifference(mean=(low + high) / 2, low=low, high=high, median=None, n=5), expected) == result


def test_claim_rejects_unknown_direction():
    with pytest.raises(ValueError, match="'lower' or 'higher'"):
        Claim("x", "1", "", "1 vs 2", PairedDifference(0.0, -1.0, 1.0, 0.0, 3), "smaller")


def test_claim_json_round_trip_recomputes_verdict():
    claim = Claim("A beats B", "−30%", "A (Fig. 3)", "1 vs 2", paired_bootstrap([1.0], [2.0]), "lower",
                  units="traces", number_format="+.1%", note="one trace only")
    stored = json.loads(json.dumps(claim.to_dict()))
    assert stored["verdict"] == "within noise" and stored["difference"]["low"] is None
    stored["verdict"] = "holds"  # a tampered verdict is not trusted
    back = Claim.from_dict(stored)
    assert back.verdict == "within noise" and back.note == "one trace only" and math.isnan(back.difference.low)


def test_claims_table_renders_every_field():
    claims = [Claim("Primo-E lowers latency vs LinnOS", "−70%", "Primo (thesis Fig. 5.14)", "0.95 vs 1.00",
                    PairedDifference(-0.05, -0.08, -0.02, -0.04, 4), "lower", units="traces", number_format="+.1%"),
              Claim("F1 higher", "0.85", "", "0.50 vs 0.52", PairedDifference(-0.02, -0.05, 0.01, None, 4), "higher",
                    note="noisy trace kept")]
    lines = claims_table(claims)
    assert lines[0].startswith("| claim | paper (source) |") and "[95% interval]" in lines[0] and lines[-1] == ""
    assert lines[2] == ("| Primo-E lowers latency vs LinnOS | −70% (Primo (thesis Fig. 5.14)) | 0.95 vs 1.00 | "
                        "−5.0% [−8.0%, −2.0%] | −4.0% | 4 traces | holds |")
    assert lines[3] == ("| F1 higher | 0.85 | 0.50 vs 0.52 | −0.020 [−0.050, +0.010] | – | 4 rows | "
                        "within noise; noisy trace kept |")


def test_claims_table_refuses_mixed_confidence_levels():
    d90 = PairedDifference(0.0, -1.0, 1.0, 0.0, 3, confidence=0.9)
    d95 = PairedDifference(0.0, -1.0, 1.0, 0.0, 3)
    with pytest.raises(ValueError, match="one confidence level"):
        claims_table([Claim("x", "", "", "", d90, "lower"), Claim("y", "", "", "", d95, "lower")])


def test_rounded_negative_zero_is_printed_as_zero():
    line = claims_table([Claim("x", "", "", "", PairedDifference(-1e-9, -0.5, 0.5, -1e-9, 3), "lower")])[2]
    assert "+0.000 [−0.500, +0.500] | +0.000" in line
