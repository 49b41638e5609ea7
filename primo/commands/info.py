"""``primo info``: what a model file holds — format, model, structure, search and edit history."""
from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("info", help="summarize a model file", description=__doc__)
    parser.add_argument("model", help="Primo model file")
    parser.set_defaults(func=run)


def run(args) -> int:
    from primo.io import model_from_document, read_document

    document, arrays = read_document(args.model)
    model = model_from_document(document, arrays)
    print(f"file: {args.model}")
    print(f"format: {document['format']} v{document['format_version']} (written by primo {document.get('primo_version')})")
    print(f"model: {document['model_class']}, {model.n_features_in_} features, complexity {model.complexity_}")
    params = model.get_params(deep=False)
    print("params: " + ", ".join(f"{k}={v!r}" for k, v in params.items()))
    print(model)
    metadata = model.metadata_
    search = metadata.get("search")
    if search:
        print(f"search: {search['method']}, {len(search['trials'])} trials, scoring {search['scoring']}, "
              f"λ={search['lam']:g}, γ={search['gamma']:g}, rule: {search.get('rule', 'lowest S')}; "
              f"kept {search['best_params']} (S={search['best_score']:.6g})")
    for key in sorted(set(metadata) - {"search", "edits"}):
        print(f"{key}: {metadata[key] if not isinstance(metadata[key], (list, dict)) else type(metadata[key]).__name__ + ' (' + str(len(metadata[key])) + ' items)'}")
    edits = metadata.get("edits") or []
    print(f"edits: {len(edits)}")
    for number, edit in enumerate(edits, 1):  # the summary; `primo adjust history` shows the arguments
        print(f"  {number}. {edit.get('operation', '?')}: {edit.get('summary', '')}")
    return 0
