"""choice_rules.py: the rules applied offline to a fold's recorded trials, and its summary."""
import json

import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def rules():
    return import_scripts("choice_rules")[0]


def _trial(trial, source, size, losses, test):
    return {"trial": trial, "source": source, "size": size, "S": sum(losses) / len(losses), "fold_losses": losses,
            "test": test}


def _record(table="french_fries", fold=0):
    """The default PrAM (lowest validated loss), a search trial worse on every fold by the same amount (no
    standard error: beyond noise) and three simplification steps: size 5 is within the paired standard
    error but 1.6% above the best and worse on 3 of 5 folds; size 40 is 0.1% above it, worse on 2 folds;
    size 3 is far worse."""
    best = [1.00, 1.02, 0.98, 1.01, 0.99]
    return {"table": table, "fold": fold, "metric": "mae", "reference_loss": 2.0,
            "kept": {"family": "pram", "test": 1.30, "S": 1.015, "size": 5.0, "trial": 2},
            "pram": [_trial(0, "estimator", 900.0, best, 1.10),
                     _trial(1, "search", 400.0, [1.005, 1.025, 0.985, 1.015, 0.995], 1.12),
                     _trial(2, "simplify", 5.0, [1.08, 1.08, 0.94, 1.03, 0.95], 1.30),
                     _trial(3, "simplify", 3.0, [1.30, 1.00, 1.20, 0.90, 1.20], None),
                     _trial(4, "simplify", 40.0, [1.012, 1.01, 0.976, 1.02, 0.987], 1.15)],
            "prdt": [_trial(5, "path", 2.0, [1.5, 1.6, 1.4, 1.5, 1.5], None)]}


def test_each_rule_picks_from_the_validated_trials_alone(rules):
    trials = rules._frame(_record())
    picked = {name: int(trials.at[rule(trials), "trial"]) for name, rule in rules.RULES.items()}
    assert picked["before 2026-11-29"] == 2  # the smallest within min(standard error, 2% of the best)
    assert picked["default"] == 4  # size 5 is worse than the best on 3 of 5 folds
    assert picked["cap 1%"] == 4 and picked["cap 0.5%"] == 4  # size 5 is also 1.6% above the best
    assert picked["lowest S"] == 0


def test_isotonic_smoothing_pools_a_lucky_small_step_with_its_neighbours(rules):
    record = _record()
    # Size 3 now validates as well as the best (a lucky step); size 5, larger, validates worse.
    record["pram"][3]["fold_losses"] = [1.00, 1.00, 1.00, 1.00, 1.00]
    record["pram"][3]["S"] = 1.0
    trials = rules._frame(record)
    assert int(trials.at[rules.RULES["default"](trials), "trial"]) == 3
    assert int(trials.at[rules.RULES["isotonic"](trials), "trial"]) != 3


def test_summary_reads_each_picks_test_loss_and_counts_picks_without_one(rules, tmp_path, capsys):
    path = tmp_path / "rules.jsonl"
    path.write_text("".join(json.dumps(_record(fold=f)) + "\n" for f in range(3)))
    rules.summarize(str(path))
    printed = capsys.readouterr().out
    assert "3 folds of 1 tables" in printed
    assert "| before 2026-11-29 | 0 | 0 / 1 | +13.04% | 1 |" in printed  # 1.30 against the default rule's 1.15
    assert "| cap 1% | 0 | 0 / 0 | +0.00% | 1 |" in printed
    assert "| lowest S | 0 | 1 / 0 | -4.35% | 0 |" in printed


def test_only_development_tables_are_run(rules):
    held_out = next(n for n, s in rules.sampled_tables.draw(1).items() if s.role == "held_out")
    with pytest.raises(SystemExit):
        rules.main(["run", "/dev/null", "--tables", held_out])


def test_confirmation_tables_are_draw_2s_unrun_held_out_tables(rules):
    draw = rules.sampled_tables.draw(2)
    assert all(draw[name].role == "held_out" for name in rules.CONFIRMATION)
    ran = rules.suite.read_results(rules.sampled_tables.json_path(2))["tables"]
    assert not set(rules.CONFIRMATION) & set(ran)  # none had been run by any contender
    table, folds = rules.table_and_folds("Boston")
    assert len(folds) == rules.sampled_tables.N_FOLDS and len(table.y) == sum(len(test) for _, test in folds)
