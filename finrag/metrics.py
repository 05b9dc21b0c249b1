"""Metrics computed from a company's figures for one fiscal year: margins, returns, turnover
and days ratios, liquidity, free cash flow, EBITDA, each as a `Step` with its formula and the
cited figures it used. The textbook definitions; a question's own definition is read by
`finrag.definition`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from finrag.book import Book, Figure, Missing, words_of
from finrag.citing import term
from finrag.lineitems import ITEMS
from finrag.question import Question


@dataclass
class Step:
    value: float
    unit: str
    formula: str
    figures: list[Figure]


def average(book: Book, key: str, year: int) -> tuple[float, str, list[Figure]]:
    a, b = book.get(key, year - 1), book.get(key, year)
    unit = b.unit
    return ((a.in_unit(unit) + b.in_unit(unit)) / 2, unit,
            f"average({term(a)}, {term(b)})"), [a, b]


def amount_unit(figs: list[Figure]) -> str:
    units = {f.unit for f in figs}
    return units.pop() if len(units) == 1 else "USD millions"


def ratio(num: Figure, den: Figure, pct: bool, sym: str = "/") -> Step:
    d = den.in_unit(num.unit)
    if d == 0:
        raise Missing(f"{den.name} for fiscal {den.fiscal_year}: zero, so no ratio")
    value = num.value / d * (100 if pct else 1)
    return Step(value, "percent" if pct else "ratio",
                f"{term(num)} {sym} {term(den)}" + (" x 100" if pct else ""), [num, den])


def tax_expense(fig: Figure) -> Figure:
    """The tax provision as an expense: a table prints it in parentheses ('Provision for income
    taxes (411)', '(Provision) benefit ... (411)'), which reads as -411 but is an expense of 411;
    only a line that says benefit alone keeps its sign."""
    label = fig.fact.line_label.lower()
    presented = re.search(r"\((?:provision|expense)\)", label) or "benefit" not in label
    if fig.fact.source == "table" and fig.value < 0 and presented:
        return Figure(fig.name, fig.fiscal_year, -fig.value, fig.unit, fig.fact, fig.note)
    return fig


def combine(figs: list[Figure], signs: list[int], name: str, year: int) -> Figure:
    unit = amount_unit(figs)
    value = sum(s * f.in_unit(unit) for s, f in zip(signs, figs))
    fake = figs[0].fact.model_copy(update={"line_label": name, "value": value, "unit": unit})
    return Figure(name, year, value, unit, fake)


def days_or_turn(book: Book, avg_key: str, flow: Figure, year: int, days: bool) -> Step:
    (avg, unit, avg_text), figs = average(book, avg_key, year)
    f = flow.in_unit(unit)
    if f == 0 or avg == 0:
        raise Missing(f"a non-zero {flow.name} and average {ITEMS[avg_key].name} for fiscal {year}")
    if days:
        return Step(365 * avg / f, "days", f"365 x {avg_text} / {term(flow)}", figs + [flow])
    return Step(f / avg, "ratio", f"{term(flow)} / {avg_text}", [flow] + figs)


def metric_year(q: Question, book: Book, year: int) -> Step:
    """The metric `q.metric` for one fiscal year."""
    m = q.metric
    def g(key):
        return book.get(key, year)
    if m in ("gross_margin", "operating_margin", "net_margin", "ebitda_margin", "item_margin"):
        num = margin_numerator(q, book, year)
        return ratio(num, g("revenue"), pct=True)
    if m == "ebitda":
        s = combine([g("operating_income"), g("dna")], [1, 1], "EBITDA", year)
        oi, dna = g("operating_income"), g("dna")
        return Step(s.value, s.unit, f"{term(oi)} + {term(dna)}", [oi, dna])
    if m == "fcf":
        cfo, capex = g("cfo"), g("capex")
        s = combine([cfo, capex], [1, -1], "free cash flow", year)
        return Step(s.value, s.unit, f"{term(cfo)} - {term(capex)}", [cfo, capex])
    if m == "working_capital":
        ca, cl = g("current_assets"), g("current_liabilities")
        s = combine([ca, cl], [1, -1], "working capital", year)
        return Step(s.value, s.unit, f"{term(ca)} - {term(cl)}", [ca, cl])
    if m == "fcf_conversion":  # free cash flow over net income
        cfo, capex, ni = g("cfo"), g("capex"), g("net_income")
        fcf = combine([cfo, capex], [1, -1], "free cash flow", year)
        step = ratio(fcf, ni, pct=True)
        step.formula = f"({term(cfo)} - {term(capex)}) / {term(ni)} x 100"
        step.figures = [cfo, capex, ni]
        return step
    if m == "capital_intensity":  # assets a dollar of revenue needs
        return ratio(g("total_assets"), g("revenue"), pct=False)
    if m == "total_debt":  # debt due within a year and after it, as the balance sheet prints
        short, long = g("short_term_debt"), g("long_term_debt")
        s = combine([short, long], [1, 1], "total debt", year)
        return Step(s.value, s.unit, f"{term(short)} + {term(long)}", [short, long])
    if m == "current_ratio":
        return ratio(g("current_assets"), g("current_liabilities"), pct=False)
    if m == "quick_ratio":
        parts = [g("cash"), g("short_term_investments"), g("accounts_receivable")]
        s = combine(parts, [1, 1, 1], "quick assets", year)
        step = ratio(s, g("current_liabilities"), pct=False)
        step.formula = "(" + " + ".join(term(p) for p in parts) + ") / " + term(
            g("current_liabilities"))
        step.figures = parts + [g("current_liabilities")]
        return step
    if m == "interest_coverage":
        return ratio(g("operating_income"), g("interest_expense"), pct=False)
    if m == "effective_tax_rate":
        return ratio(tax_expense(g("income_tax")), g("pretax_income"), pct=True)
    if m == "payout_ratio":
        return ratio(g("dividends_paid"), g("net_income"), pct=True)
    if m in ("inventory_turnover", "dio"):
        return days_or_turn(book, "inventory", g("cogs"), year, days=m == "dio")
    if m in ("receivables_turnover", "dso"):
        return days_or_turn(book, "accounts_receivable", g("revenue"), year, days=m == "dso")
    if m == "payables_turnover":
        return days_or_turn(book, "accounts_payable", g("cogs"), year, days=False)
    if m == "dpo":
        cogs = g("cogs")
        if "inventory" in q.definition_items:  # COGS + change in inventory = purchases
            inv0, inv1 = book.get("inventory", year - 1), g("inventory")
            cogs = combine([cogs, inv1, inv0], [1, 1, -1], "COGS + change in inventory", year)
            step = days_or_turn(book, "accounts_payable", cogs, year, days=True)
            step.formula = step.formula.replace(
                term(cogs), f"({term(g('cogs'))} + {term(inv1)} - {term(inv0)})")
            step.figures = [f for f in step.figures if f is not cogs] + [g("cogs"), inv1, inv0]
            return step
        return days_or_turn(book, "accounts_payable", cogs, year, days=True)
    if m in ("asset_turnover", "fixed_asset_turnover"):
        key = "total_assets" if m == "asset_turnover" else "ppe_net"
        return days_or_turn(book, key, g("revenue"), year, days=False)
    if m in ("roa", "roe"):
        key = "total_assets" if m == "roa" else "equity"
        step = days_or_turn(book, key, g("net_income"), year, days=False)
        step.value, step.unit, step.formula = step.value * 100, "percent", step.formula + " x 100"
        return step
    raise Missing(f"a formula for {m}")


# items each metric's formula uses (to check the question's own definition against)
USES = {
    "gross_margin": {"gross_profit", "revenue", "cogs"},
    "operating_margin": {"operating_income", "revenue"},
    "net_margin": {"net_income", "revenue"},
    "ebitda_margin": {"operating_income", "dna", "revenue"},
    "ebitda": {"operating_income", "dna"}, "fcf": {"cfo", "capex"},
    "working_capital": {"current_assets", "current_liabilities"},
    "current_ratio": {"current_assets", "current_liabilities"},
    "quick_ratio": {"cash", "short_term_investments", "accounts_receivable", "current_liabilities"},
    "interest_coverage": {"operating_income", "interest_expense"},
    "effective_tax_rate": {"income_tax", "pretax_income"},
    "payout_ratio": {"dividends_paid", "net_income"},
    "inventory_turnover": {"inventory", "cogs"}, "dio": {"inventory", "cogs"},
    "receivables_turnover": {"accounts_receivable", "revenue"},
    "dso": {"accounts_receivable", "revenue"}, "payables_turnover": {"accounts_payable", "cogs"},
    "dpo": {"accounts_payable", "cogs", "inventory"},
    "asset_turnover": {"total_assets", "revenue"}, "fixed_asset_turnover": {"ppe_net", "revenue"},
    "roa": {"total_assets", "net_income"}, "roe": {"equity", "net_income"},
    "fcf_conversion": {"cfo", "capex", "net_income"},
    "capital_intensity": {"total_assets", "revenue"},
    "total_debt": {"short_term_debt", "long_term_debt"},
}


def margin_numerator(q: Question, book: Book, year: int) -> Figure:
    m = q.metric
    if m == "gross_margin":
        try:
            return book.get("gross_profit", year)
        except Missing:
            rev, cogs = book.get("revenue", year), book.get("cogs", year)
            _main_cost(book, cogs)
            return combine([rev, cogs], [1, -1], "gross profit (revenue - cost of sales)", year)
    if m == "operating_margin":
        return book.get("operating_income", year)
    if m == "net_margin":
        return book.get("net_income", year)
    if m == "ebitda_margin":
        oi, dna = book.get("operating_income", year), book.get("dna", year)
        return combine([oi, dna], [1, 1], f"EBITDA ({term(oi)} + {term(dna)})", year)
    nums = [i for i in q.items if i.key != "revenue"]
    if len(nums) != 1:
        raise Missing("one line item to divide by revenue, but the question names "
                      f"{len(nums)}")
    return book.get(nums[0].key, year)


def _main_cost(book: Book, cogs: Figure) -> None:
    """Revenue less cost of sales is a gross profit only where the cost of sales is the main cost
    of revenue: an insurer's 'Cost of products sold' beside its larger 'Medical costs' is not
    (UnitedHealth), so no gross margin is computed from it. Totals and expenses are not costs
    of revenue ('Total costs and expenses')."""
    f = cogs.fact
    for other in book.facts:
        words = words_of(other.line_label)
        if (other.filing_key == f.filing_key and other.statement == "income" and not other.dims
                and other.period_end == f.period_end and other.period_start == f.period_start
                and "cost" in words and not words & {"total", "expense"}
                and other.line_label != f.line_label and other.unit == f.unit
                and abs(other.value) > abs(f.value)):
            raise Missing(f"gross profit for fiscal {cogs.fiscal_year} ({book.ticker}): no gross "
                          f"profit line, and '{other.line_label}' is a larger cost of revenue "
                          f"than '{f.line_label}'")
