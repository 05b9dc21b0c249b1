"""`python -m finrag ask` on a real index (real model, real facts): the documented --json shape,
the text output, honest refusals and one-line errors."""

from __future__ import annotations

import json

import pytest

from finrag.cli import main as finrag_main

CITATION_KEYS = {"ticker", "fiscal_year", "line_label", "statement", "page", "page_label", "url"}
ANSWER_KEYS = {"kind", "value", "unit", "text", "fiscal_year", "formula", "values", "change_pct",
               "verdict", "citations", "points", "growth", "missing", "sentences",
               "other_totals"}


def _ask(argv, capsys):
    code = finrag_main(["ask", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stated_figure_as_json(sample_index, capsys):
    code, out, _ = _ask(["Tesla R&D expense 2024", "--json", "--data-dir", str(sample_index)],
                        capsys)
    data = json.loads(out)
    assert code == 0 and set(data) == {"question", "answer", "reason", "passages"}
    a = data["answer"]
    assert set(a) == ANSWER_KEYS and data["reason"] is None
    assert (a["kind"], a["value"], a["unit"], a["fiscal_year"]) == ("stated", 4540, "USD millions",
                                                                   2024)
    assert [set(c) for c in a["citations"]] == [CITATION_KEYS]
    c = a["citations"][0]
    assert (c["ticker"], c["line_label"], c["statement"]) == ("TSLA", "Research and development",
                                                              "income")
    assert data["passages"] and (
        {"chunk_id", "rank", "ticker", "page", "text"} <= set(data["passages"][0]))


def test_a_change_as_json(sample_index, capsys):
    code, out, _ = _ask(["How did Apple's services revenue change in fiscal 2024?", "--json",
                         "--data-dir", str(sample_index)], capsys)
    a = json.loads(out)["answer"]
    assert code == 0
    assert a["kind"] == "change" and a["values"] == {"2023": 85200, "2024": 96169}
    assert a["value"] == 96169 - 85200 and a["change_pct"] == pytest.approx(12.87, abs=0.01)
    assert len(a["citations"]) == 2


def test_a_verdict_as_json_and_as_text(sample_index, capsys):
    question = "Does Apple have positive working capital in fiscal 2024?"
    code, out, _ = _ask([question, "--json", "--data-dir", str(sample_index)], capsys)
    a = json.loads(out)["answer"]
    assert code == 0 and (a["kind"], a["verdict"]) == ("verdict", "no")
    assert a["value"] == 152987 - 176392 and a["values"] == {"2024": -23405}
    assert {c["line_label"] for c in a["citations"]} == {"Total current assets",
                                                         "Total current liabilities"}
    code, out, _ = _ask([question, "--data-dir", str(sample_index)], capsys)
    assert out.startswith("No — Apple, working capital fiscal 2024: -$23,405 million")


def test_a_line_outside_the_known_items_by_its_printed_label(sample_index, capsys):
    code, out, _ = _ask(["Tesla restructuring and other 2024", "--json", "--data-dir",
                         str(sample_index)], capsys)
    a = json.loads(out)["answer"]
    assert (a["kind"], a["value"], a["unit"]) == ("stated", 684, "USD millions")
    assert a["citations"][0]["line_label"] == "Restructuring and other"


@pytest.mark.parametrize("question", ["<script>alert(1)</script>", "supply chain risk"])
def test_no_answer_for_a_question_that_asks_for_no_figure(sample_index, capsys, question):
    code, out, _ = _ask([question, "--json", "--data-dir", str(sample_index)], capsys)
    data = json.loads(out)
    assert code == 0 and data["answer"] is None and "no figure" in data["reason"]


def test_a_missing_figure_says_what_was_looked_for(sample_index, capsys):
    code, out, _ = _ask(["Tesla inventory turnover 2023", "--data-dir", str(sample_index)], capsys)
    assert code == 0 and out.startswith("No answer.") and "inventories for fiscal 2022" in out
    assert "passages:" in out


def test_text_output_states_the_figure_and_its_citation(sample_index, capsys):
    code, out, _ = _ask(["capex", "--ticker", "AAPL", "--year", "2024", "--data-dir",
                         str(sample_index)], capsys)
    first = out.splitlines()[0]
    assert code == 0 and first.startswith("$9,447 million — ")
    assert "Payments for acquisition of property, plant and equipment" in first


def test_bad_year_is_one_line_and_exit_1(sample_index, capsys):
    code, _, err = _ask(["capex", "--year", "abc", "--data-dir", str(sample_index)], capsys)
    assert code == 1 and "--year 'abc'" in err and len(err.strip().splitlines()) == 1


def test_eval_figures_on_a_missing_file_is_one_line(tmp_path, capsys):
    code = finrag_main(["eval", "figures", "--questions", str(tmp_path / "nope.jsonl"),
                        "--data-dir", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code == 1 and "nope.jsonl: not found" in err and len(err.strip().splitlines()) == 1


def test_a_why_question_answers_with_the_change_and_the_filing_sentences(sample_index, capsys):
    question = "What drove Tesla's gross margin change in 2024?"
    code, out, _ = _ask([question, "--json", "--data-dir", str(sample_index)], capsys)
    a = json.loads(out)["answer"]
    assert code == 0 and a["kind"] == "passage"
    assert a["value"] == pytest.approx(-0.4, abs=0.05)  # 18.2% -> 17.9%, from the statements
    assert a["sentences"] and all("gross margin" in s["text"].lower() for s in a["sentences"])
    assert {(s["citation"]["section"], s["citation"]["page_label"]) for s in a["sentences"]} <= {
        ("Item 7", "39"), ("Item 7", "40")}
    code, out, _ = _ask([question, "--data-dir", str(sample_index)], capsys)
    assert out.startswith("-0.4 percentage points") and "the filing says:" in out
    assert "\u2014 Tesla, Inc. FY2024, Item 7, p. 39" in out


def test_a_why_question_with_no_sentence_giving_the_cause_gets_none(sample_index, capsys):
    code, out, _ = _ask(["Why did Tesla's operating margin change in 2024?", "--json",
                         "--data-dir", str(sample_index)], capsys)
    data = json.loads(out)
    assert data["answer"] is None and "no sentence in the top passages gives the cause" in \
        data["reason"] and "fiscal 2024 7.2%" in data["reason"]
