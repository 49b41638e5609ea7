"""``primo info``: what a model file holds — format, model, structure, search, selection and edit history."""
from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("info", help="summarize a model file", description=__doc__)
    parser.add_argument("model", help="Primo model file")
    parser.set_defaults(func=run)


def run(args) -> int:
    from primo.explain import model_card
    from primo.io import model_from_document, read_document

    document, arrays = read_document(args.model)
    model = model_from_document(document, arrays)
    print(f"file: {args.model}")
    print(f"format: {document['format']} v{document['format_version']} (written by primo {document.get('primo_version')})")
    size = f", size {model.size_}" if hasattr(model, "size_") else ""
    print(f"model: {document['model_class']}, {model.n_features_in_} features, complexity {model.complexity_}{size}")
    params = model.get_params(deep=False)
    print("params: " + ", ".join(f"{k}={v!r}" for k, v in params.items()))
    print(model)
    card = model_card(model, measure_latency=False)
    if card.search is not None:
        _print_search(card.search)
    if card.selection is not None:
        _print_selection(card.selection)
    if card.distillation is not None:
        _print_distillation(card.distillation)
    for key, value in sorted(card.other_metadata.items()):
        _print_metadata(str(key), value)
    edits = model.metadata_.get("edits") or []
    print(f"edits: {len(edits)}")
    for number, edit in enumerate(edits, 1):  # the summary; `primo adjust history` shows the arguments
        print(f"  {number}. {edit.get('operation', '?')}: {edit.get('summary', '')}")
    return 0


def _print_search(search) -> None:
    from primo.report.search_view import kept_text, rule_sentence, trial_text

    print(f"search: {search.method}, {len(search.trials)} trials, scoring {search.scoring}, "
          f"λ={search.lam:g}, γ={search.gamma:g}")
    print(f"  rule ({search.rule}): {rule_sentence(search)}")
    print(f"  kept: {kept_text(search)}")
    if search.lowest_index is not None and search.lowest_index != search.chosen_index:
        print(f"  lowest {'loss' if search.lam == 0 else 'S'}: {trial_text(search, search.lowest_index)}")


def _print_distillation(distillation) -> None:
    from primo.report.summary import facts, summarize

    print(f"distillation: {distillation.method}, fidelity to the teacher {summarize(distillation.fidelity)}")
    for name, text in facts(distillation.details):
        print(f"  {name}: {text}")
    if len(distillation.iterations):
        columns = ", ".join(map(str, distillation.iterations.columns))
        print(f"  iterations: {len(distillation.iterations)} ({columns}; `primo report` draws them)")


def _print_metadata(key: str, value) -> None:
    """Any other metadata entry as labelled facts (a summary, never a raw dict or list)."""
    from primo.report.summary import facts, label, summarize

    if isinstance(value, dict) and value:
        print(f"{label(key)}:")
        for name, text in facts(value):
            print(f"  {name}: {text}")
    else:
        print(f"{label(key)}: {summarize(value)}")


def _print_selection(selection) -> None:
    """One line per family (the selected one starred), columns aligned, and what the latency is."""
    from primo.report.search_view import latency_legend, selected_family, selection_table
    from primo.report.svg import fmt

    table = selection_table(selection).reset_index()
    chosen = selected_family(selection)
    table.insert(0, "", ["*" if family == chosen else " " for family in table["family"]])
    text = table.astype(object).map(fmt)
    widths = {c: max(len(str(c)), text[c].str.len().max()) for c in text.columns if c != "reason"}
    print(f"selection: {chosen or 'none'} selected (relative loss: validated loss ÷ the trivial predictor's)")
    print("  " + "  ".join(str(c).ljust(widths.get(c, 0)) for c in text.columns).rstrip())
    for _, row in text.iterrows():
        print("  " + "  ".join(v.ljust(widths.get(c, 0)) for c, v in row.items()).rstrip())
    if "latency µs" in table:
        print("  " + latency_legend(selection))
