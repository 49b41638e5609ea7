"""How a model was chosen, in the reports and in ``primo info``: the loss–size front of its search with
the kept trial, the rule, and the automatic-selection table. Fast: a pruning-path search (one grown tree
per fold) and a tiny automatic selection on Clara-MS rows; old model files from reports/."""
import copy
import html as html_lib
import re
import types
from pathlib import Path

import pytest

import primo
from primo import PrDTRegressor, PrimoRegressor
from primo.cli import main
from primo.explain import model_card
from primo.report import build, search_view
from primo.search import PruningSearch
from primo.search.choice import ONE_STANDARD_ERROR_RULE, RULE_BEFORE_2026_11, RULE_BEFORE_2026_11_29

REPORTS = Path(__file__).resolve().parents[3] / "reports"


@pytest.fixture(scope="module")
def path_search(clara):
    X, y, _, _ = clara
    # 5 folds: on 3 the rule keeps the lowest-loss tree here (a smaller one loses on 2 of 3 folds)
    return PruningSearch(PrDTRegressor(random_state=0), cv=5, random_state=0, progress=False).fit(X, y)


@pytest.fixture(scope="module")
def auto_model(clara):
    """A model from automatic selection over both families (PrAM kept tiny and single-threaded)."""
    X, y, _, _ = clara
    pram = {"max_rounds": 50, "outer_bags": 1, "interactions": 0, "max_bins": 16, "n_jobs": 1}
    auto = PrimoRegressor(n_trials=2, cv=3, random_state=0, n_jobs=1, progress=False, family_params={"pram": pram})
    return auto.fit(X.iloc[:300], y.iloc[:300]).best_estimator_


def _figure(html: str, name: str) -> str:
    match = re.search(rf'<figure data-figure="{name}">(.*?)</figure>', html, flags=re.S)
    assert match, f"no {name} figure"
    return html_lib.unescape(match.group(1))


def _circle_at(svg: str, title_start: str) -> tuple[float, float]:
    """Centre of the circle whose tooltip starts with ``title_start``."""
    match = re.search(rf'<circle cx="([\d.]+)" cy="([\d.]+)"[^>]*><title>{re.escape(title_start)}', svg)
    assert match, title_start
    return float(match.group(1)), float(match.group(2))


def test_front_draws_every_trial_the_pareto_steps_and_the_kept_trial(path_search):
    model = path_search.best_estimator_
    history = model.metadata_["search"]
    trials = path_search.trials_
    kept, lowest = trials.loc[path_search.best_index_], trials.loc[path_search.optimum_index_]
    assert kept["trial"] != lowest["trial"]  # the rule kept a smaller tree than the lowest loss: both are marked
    front = _figure(build(model, local_rows=0, measure_latency=False).to_html(), "front")

    assert front.count('class="dot ') == len(trials)
    assert front.count('class="dot line-0"') == int(trials["pareto"].sum())
    # The ring sits on the kept trial's dot; the legend names it with its size and relative loss.
    ring = re.search(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="7.5" class="chosen"><title>kept', front)
    assert ring and (float(ring.group(1)), float(ring.group(2))) == _circle_at(front, f"trial {history['chosen_trial']}:")
    assert f"kept: trial {history['chosen_trial']}, size {kept['size']:.0f}, {kept['relative_loss']:.3g}" in front
    assert f"lowest loss: trial {history['lowest_score_trial']}, size {lowest['size']:.0f}" in front
    assert front.count('class="lowest"') == 2  # the square on the point and its legend key
    # The Pareto front is a staircase: size grows and loss falls (pixel y grows) along it.
    path = re.search(r'<path d="([^"]+)" class="line front"', front).group(1)
    xs, ys = zip(*[(float(a), float(b)) for a, b in re.findall(r"[ML]([\d.]+) ([\d.]+)", path)])
    assert len(xs) == 2 * int(trials["pareto"].sum()) - 1
    assert list(xs) == sorted(xs) and list(ys) == sorted(ys)
    # ±1 standard error bars: a vertical line and two caps per trial
    assert front.count('class="errorbar"') == 3 * int((trials["loss_se"] > 0).sum())
    assert "size (leaves), log scale" in front and "mae ÷ trivial predictor's" in front


def test_front_caption_states_the_rule_and_markdown_lists_the_front(path_search):
    model = path_search.best_estimator_
    report = build(model, local_rows=0, measure_latency=False)
    caption = html_lib.unescape(re.search(r'<figure data-figure="front">.*?<figcaption>(.*?)</figcaption>',
                                          report.to_html(), flags=re.S).group(1))
    assert caption.startswith("Rule: the smallest model whose validated loss is within one paired standard error "
                              "of the lowest (and at most 2% above it), and no worse than the lowest on at least "
                              "half of the validation folds (or hold-out chunks).")
    markdown = report.to_markdown()
    front_rows = re.findall(r"^\| (\d+) \| [\d.,]+ \| [\d.]+ ± [\d.]+ \|(.*)\|$", markdown, flags=re.M)
    assert len(front_rows) == int(path_search.trials_["pareto"].sum())
    kept_trial = str(model.metadata_["search"]["chosen_trial"])
    assert [note.strip() for trial, note in front_rows if trial == kept_trial] == ["kept"]


def test_files_saved_under_an_earlier_default_rule_state_that_rule():
    def sentence(rule):
        return search_view.rule_sentence(types.SimpleNamespace(lam=0.0, rule=rule))
    assert "half of the validation folds" in sentence(ONE_STANDARD_ERROR_RULE)
    assert sentence(RULE_BEFORE_2026_11_29) == ("the smallest model whose validated loss is within one paired "
                                                "standard error of the lowest (and at most 2% above it).")
    assert "2% of the trivial predictor's loss" in sentence(RULE_BEFORE_2026_11)
    assert sentence("tolerance 0") == "the lowest validated loss (the paper's rule)."


#: What a search history held before the size rule (issue 16): no size, rule, reference loss or folds.
OLD_HISTORY_KEYS = {"best_params", "best_score", "gamma", "lam", "method", "n_trials", "scoring", "search_rows"}
OLD_TRIAL_KEYS = {"ccp_alpha", "complexity", "error", "fit_time", "loss", "score", "source", "trial"}


def test_model_files_saved_before_the_size_rule_still_render():
    model = primo.load(REPORTS / "pensieve" / "pensieve_tree.primo")
    search = model.metadata_["search"]
    assert search["rule"] == "tolerance 0"  # the case study keeps the lowest S, as old files did
    model.metadata_["search"] = {**{k: v for k, v in search.items() if k in OLD_HISTORY_KEYS},
                                 "trials": [{k: v for k, v in trial.items() if k in OLD_TRIAL_KEYS}
                                            for trial in search["trials"]]}
    report = build(model, local_rows=0, measure_latency=False)
    front = _figure(report.to_html(), "front")
    assert "complexity C (this file does not record the readable size), log scale" in front
    kept = model.metadata_["search"]["best_params"]["ccp_alpha"]
    card = model_card(model, measure_latency=False)
    assert card.search.trials.loc[card.search.chosen_index, "ccp_alpha"] == kept
    assert f"kept = lowest S: trial {card.search.trials.loc[card.search.chosen_index, 'trial']}," in front
    assert "Rule: the lowest validated S = loss + λ·C^γ (the paper's rule)." in html_lib.unescape(report.to_html())
    assert "Loss–size Pareto front" in report.to_markdown()


def test_selection_table_in_the_report(auto_model):
    selection = auto_model.metadata_["selection"]
    html = build(auto_model, local_rows=0, measure_latency=False).to_html()
    table = re.search(r"<h3>Automatic selection</h3>.*?<table>(.*?)</table>", html, flags=re.S).group(1)
    headers = re.findall(r"<th>([^<]*)</th>", table.split("</thead>")[0])
    assert headers == ["family", "model", "size", "relative loss ± se", "latency µs", "reason"]  # regression: no log loss
    rows = re.findall(r"<tr( class=\"highlight\")?><th>(\w+)</th>", table.split("<tbody>")[1])
    assert [family for _, family in rows] == [r["family"] for r in selection]
    assert [bool(mark) for mark, _ in rows] == [r["selected"] for r in selection]
    for record in selection:
        assert html_lib.escape(record["reason"]) in table
    assert "<h3>Selection</h3>" not in html  # no longer dumped as raw metadata


def test_report_marks_the_trial_the_selected_model_was_refit_from(auto_model):
    search = model_card(auto_model, measure_latency=False).search
    family = next(r["family"] for r in auto_model.metadata_["selection"] if r["selected"])
    kept = search.trials.loc[search.chosen_index, "params"]
    assert all(auto_model.get_params()[name] == value for name, value in kept.items()), family
    # A model refit with other values than its validated trial's (a cross-fitted search's bags) says so.
    name = next(k for k, v in kept.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    refit = copy.deepcopy(auto_model)
    setattr(refit, name, 3 * kept[name] + 1)
    refit.metadata_["search"]["kept_model_params"] = {name: 3 * kept[name] + 1}
    search = model_card(refit, measure_latency=False).search
    assert search.trials.loc[search.chosen_index, "params"] == kept
    assert search_view.kept_text(search).endswith(f"; the kept model has {name}={search_view.fmt(3 * kept[name] + 1)}")


def test_card_prefers_the_trial_whose_parameters_are_the_models(path_search):
    model = path_search.best_estimator_
    trials = path_search.trials_
    other = trials.index[(trials["size"] > 2 * trials.loc[path_search.best_index_, "size"])][0]
    original = model.ccp_alpha
    model.ccp_alpha = trials.loc[other, "ccp_alpha"]  # as if refit from another trial (e.g. by automatic selection)
    try:
        assert model_card(model, measure_latency=False).search.chosen_index == other
    finally:
        model.ccp_alpha = original
    assert model_card(model, measure_latency=False).search.chosen_index == path_search.best_index_


def test_info_prints_the_kept_trial_and_the_selection_table(auto_model, tmp_path, capsys):
    path = auto_model.save(tmp_path / "auto.primo")
    capsys.readouterr()
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    search = auto_model.metadata_["search"]
    assert f"search: {search['method']}, {len(search['trials'])} trials" in out
    assert f"rule ({ONE_STANDARD_ERROR_RULE}): the smallest model whose validated loss" in out
    assert re.search(r"kept: trial \d+ \(\w+\) .*validation mae [\d.]+ ± [\d.]+ \([\d.]+ of the trivial "
                     r"predictor's\), size [\d.]+", out)
    assert "selection: list" not in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["family", "model", "size"])
    rows = lines[header + 1: header + 1 + len(auto_model.metadata_["selection"])]
    for line, record in zip(rows, auto_model.metadata_["selection"]):
        assert line.startswith("  *" if record["selected"] else "   ")
        assert line.split()[-len(record["reason"].split()):] == record["reason"].split()
        assert record["family"] in line.split()[:2] and record["model"] in line
