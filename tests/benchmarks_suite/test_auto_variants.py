"""auto_variants.py: which tables inform defaults, and its over-tables summary line."""
import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def variants():
    return import_scripts("auto_variants")[0]


def test_only_development_tables_inform_defaults(variants):
    roles = {spec.role for spec in variants.SAMPLED_DEVELOPMENT.values()}
    assert roles == {"development"} and len(variants.SAMPLED_DEVELOPMENT) == variants.sampled_tables.DEVELOPMENT
    assert set(variants.SUITE_DEVELOPMENT) | set(variants.SAMPLED_DEVELOPMENT) == set(variants.DEVELOPMENT)
    with pytest.raises(SystemExit):  # a held-out table is refused
        held_out = next(n for n, s in variants.sampled_tables.draw(1).items() if s.role == "held_out")
        variants.main(["run", "/dev/null", "x", "{}", "--tables", held_out])
    used = variants.used_held_out()  # admitted only with --used-held-out, and never a later draw's table
    assert held_out in used and {spec.role for spec in used.values()} == {"held_out"}
    assert not set(used) & set(variants.sampled_tables.draw(variants.USED_DRAWS + 1))
    assert variants.sampled_spec(held_out).name == held_out and variants.sampled_spec("diabetes") is None
    later = next(iter(variants.sampled_tables.draw(variants.USED_DRAWS + 1)))
    with pytest.raises(SystemExit):  # a later draw's table only with --confirm-draw, for a written criterion
        variants.main(["run", "/dev/null", "x", "{}", "--tables", later, "--used-held-out"])
    assert variants.sampled_spec(later) is None
    assert variants.sampled_spec(later, confirm_draw=variants.USED_DRAWS + 1).name == later
    table, folds = variants.development_table("french_fries")
    assert len(folds) == variants.sampled_tables.N_FOLDS and len(table.y) <= variants.sampled_tables.MAX_ROWS


def test_over_tables_counts_tables_and_bootstraps_the_median(variants):
    line = variants.over_tables("new", "old", [-0.10, -0.02, 0.0, 0.01, -0.05])
    assert line.startswith("new against old over 5 tables: lower loss on 3, higher on 1; median relative "
                           "difference -2.00% [")
    low, high = (float(v.rstrip("%")) for v in line.split("[")[1].split("]")[0].split(", "))
    assert low <= -2.0 <= high
    assert "bootstrap" not in variants.over_tables("new", "old", [0.03])


def test_capped_bags_tells_a_stage_that_ran_out_of_rounds(variants):
    from sklearn.datasets import load_diabetes

    from primo import PrAMRegressor, PrDTRegressor

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X = X.iloc[:200, :4]
    y = y.iloc[:200]
    out_of_rounds = PrAMRegressor(max_rounds=5, outer_bags=1, interactions=1, n_jobs=1, random_state=0).fit(X, y)
    assert variants.capped_bags(out_of_rounds) == {"main": 1.0, "pairs": 1.0}
    stopped = PrAMRegressor(learning_rate=0.5, outer_bags=1, interactions=0, n_jobs=1, random_state=0).fit(X, y)
    assert variants.capped_bags(stopped) == {"main": 0.0, "pairs": 0.0}
    assert variants.capped_bags(PrDTRegressor().fit(X, y)) is None
