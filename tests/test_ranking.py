"""Which line of a set is largest, smallest or above a share: ranked from lines a rule picks
(the three cash flow activities; parts that add up to total revenue), or no answer."""

from __future__ import annotations

from finrag.answer import answer
from finrag.question import parse
from tests.test_answer import CO, fact, revenue


def flows(cfo, cfi, cff, year=2024):
    return [fact(label, value, year, statement="cash_flow", concept=f"us-gaap:{concept}")
            for label, value, concept in [
                ("Net cash provided by operating activities", cfo,
                 "NetCashProvidedByUsedInOperatingActivities"),
                ("Net cash used in investing activities", cfi,
                 "NetCashProvidedByUsedInInvestingActivities"),
                ("Net cash used in financing activities", cff,
                 "NetCashProvidedByUsedInFinancingActivities")]]


def test_the_cash_flow_activity_that_brought_in_the_most_and_used_the_most():
    facts = flows(1_000, -300, -900)
    a = answer(parse("Which cash flow activity brought in the most cash for 3M in 2024?", CO),
               facts).answer
    assert a.kind == "ranking" and a.value == 1_000 and "operating" in a.text.split(" — ")[0]
    a = answer(parse("Which of 3M's activities used the most cash in 2024?", CO), facts).answer
    assert a.value == -900 and "financing" in a.text.split(" — ")[0]


def segment(name, value, year=2024):
    return fact(name, value, year, concept="us-gaap:Revenues", statement="other",
                dims=[f"us-gaap:StatementBusinessSegmentsAxis=mmm:{name.replace(' ', '')}Member"])


def test_segments_that_add_up_to_revenue_are_ranked_and_shares_settle_a_yes():
    facts = [revenue(2024, 100), segment("Safety", 45), segment("Consumer", 15),
             segment("Transportation", 40)]
    a = answer(parse("Which segment had the highest revenue for 3M in FY2024?", CO), facts).answer
    assert (a.kind, a.value) == ("ranking", 45) and a.text.startswith("Safety")
    q = parse("Are there any segments that represent more than 20% of 3M's revenue for FY2024?",
              CO)
    a = answer(q, facts).answer
    assert (a.kind, a.verdict) == ("verdict", "yes")
    assert list(a.values) == ["Safety", "Transportation"]


def test_parts_that_do_not_add_up_to_the_total_are_no_answer():
    facts = [revenue(2024, 100), segment("Safety", 45), segment("Consumer", 15)]
    out = answer(parse("Which segment had the highest revenue for 3M in FY2024?", CO), facts)
    assert out.answer is None and "add up" in out.reason


def test_a_table_row_that_is_not_a_part_breaks_the_sum_and_the_ranking():
    rows = [revenue(2024, 66_608, source="table", page=60),
            fact("Sales of products", 55_893, 2024, source="table", page=60),
            fact("Sales of services", 10_715, 2024, source="table", page=60),
            fact("Gain on dispositions, net", 6, 2024, source="table", page=60)]
    for f in rows:
        f.chunk_id = "c" * 32
    out = answer(parse("Which of 3M's product lines had the highest revenue in 2024?", CO), rows)
    assert out.answer is None and "add up" in out.reason
    out = answer(parse("Which of 3M's product lines had the highest revenue in 2024?", CO),
                 rows[:3])
    assert out.answer.text.startswith("Sales of products")
