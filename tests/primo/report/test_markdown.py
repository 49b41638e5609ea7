"""The Markdown table helpers every case-study README is written with."""
from primo.report.markdown import table, table_text


def test_table_lines_end_with_a_blank_line_and_text_form_does_not():
    lines = table(["model", 90], [["PrAM", 2.5], ["GBDT", "2.547"]])
    assert lines == ["| model | 90 |", "|---|---|", "| PrAM | 2.5 |", "| GBDT | 2.547 |", ""]
    assert table_text(["model", 90], [["PrAM", 2.5], ["GBDT", "2.547"]]) == "\n".join(lines[:-1])
    assert table_text(["a"], []) == "| a |\n|---|"
